import net from 'node:net';
import { ARTICLE_MAX_BYTES } from '@adam/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiResult, type TestServer } from '../helpers.js';
import { report } from './report.js';

/**
 * The Input promises: the 100 kB article limit counted in UTF-8 bytes, oversized and malformed
 * bodies refused with `{detail}` and nothing stored, prototype keys unable to pollute, text kept
 * as sent or refused naming the field, and every error (the framework's own too) a `{detail}`.
 */

let s: TestServer;
let key: string;

// No workers: an accepted save stays a pending job, so 100 kB texts cost no embedding.
beforeAll(async () => {
  s = await startServer({ env: { ADAM_WORKERS: '0' } });
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
});

const count = (table: string) =>
  (s.adam.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const rows = () => ({
  snippets: count('snippets'),
  jobs: count('jobs'),
  sources: count('sources'),
});

/** A `{detail}` error: a 4xx with a non-empty detail string. */
function isDetailError(r: ApiResult, status?: number): boolean {
  return (
    (status === undefined ? r.status >= 400 && r.status < 500 : r.status === status) &&
    typeof r.body === 'object' &&
    r.body !== null &&
    typeof r.body.detail === 'string' &&
    r.body.detail.length > 0
  );
}

/** Sends raw bytes and answers the whole response as text. */
function raw(request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(s.url).port), '127.0.0.1', () => socket.end(request));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}
const rawStatus = (response: string) => Number(response.slice(9, 12));
const rawDetail = (response: string): unknown => {
  try {
    return (JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { detail?: unknown })
      .detail;
  } catch {
    return undefined;
  }
};

describe('the 100 kB article limit in UTF-8 bytes', () => {
  const fill = (char: string, bytes: number) => {
    const per = Buffer.byteLength(char);
    return char.repeat(Math.floor(bytes / per)) + 'a'.repeat(bytes % per);
  };
  const cases: { name: string; text: string }[] = [];
  for (const [name, char] of [
    ['2-byte é', 'é'],
    ['3-byte €', '€'],
    ['4-byte 😀', '😀'],
  ] as const) {
    cases.push({ name: `${name} at the limit`, text: fill(char, ARTICLE_MAX_BYTES) });
    cases.push({ name: `${name} one byte over`, text: fill(char, ARTICLE_MAX_BYTES) + 'a' });
  }
  // The last character straddles the limit: its first bytes fit, its last do not.
  cases.push({
    name: 'mix ending on 😀 at the limit',
    text: 'a'.repeat(ARTICLE_MAX_BYTES - 4) + '😀',
  });
  cases.push({
    name: 'mix whose last 😀 straddles the limit',
    text: 'a'.repeat(ARTICLE_MAX_BYTES - 3) + '😀',
  });
  cases.push({
    name: 'mix whose last € straddles the limit',
    text: 'é'.repeat((ARTICLE_MAX_BYTES - 2) / 2) + '€',
  });

  it('accepts a text of exactly 102400 bytes and refuses 102401 with 413 and no row', async () => {
    const failures: string[] = [];
    let runs = 0;
    // The console's Wikipedia save sends its source URL: the same limit applies.
    for (const source_url of [undefined, 'https://en.wikipedia.org/wiki/Test']) {
      for (const c of cases) {
        runs++;
        const bytes = Buffer.byteLength(c.text);
        const before = rows();
        const r = await s.api('/api/v1/playground/save-segments', {
          method: 'POST',
          key,
          body: { title: c.name, language: 'en', text: c.text, source_url },
        });
        const after = rows();
        if (bytes <= ARTICLE_MAX_BYTES) {
          if (r.status !== 200 || after.jobs !== before.jobs + 1)
            failures.push(`${c.name} (${bytes} B): ${r.status} ${JSON.stringify(r.body)}`);
        } else if (
          r.status !== 413 ||
          r.body?.detail !== 'Article text exceeds 100 kB' ||
          JSON.stringify(after) !== JSON.stringify(before)
        ) {
          failures.push(
            `${c.name} (${bytes} B): ${r.status} ${JSON.stringify(r.body)}, rows ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
          );
        }
      }
    }
    report({
      check: 'input: 100 kB limit in multibyte text',
      runs,
      failures: failures.length,
      figure: `${failures.length} wrong / ${runs} texts of 102400 and 102401+ bytes (2-, 3-, 4-byte, straddling)`,
    });
    expect(failures).toEqual([]);
  });
});

describe('bodies refused whole', () => {
  it('answers 413 {detail} to a body over the route or server limit, storing nothing', async () => {
    const failures: string[] = [];
    const before = rows();
    const rulesBefore = count('scraping_rules');
    const attempts: { path: string; body: string }[] = [
      // Over the save route's 1 MB body limit (the article check never runs).
      {
        path: '/api/v1/playground/save-segments',
        body: JSON.stringify({ title: 't', text: 'a'.repeat(1024 * 1024 + 10) }),
      },
      // Over the server's 2 MB body limit.
      {
        path: '/api/v1/rules/scraping',
        body: JSON.stringify({ domain: 'big.example', target: 'x'.repeat(2 * 1024 * 1024 + 10) }),
      },
      {
        path: '/api/v1/snippets/search',
        body: JSON.stringify({ query: 'q '.repeat(1024 * 1024 + 10) }),
      },
    ];
    for (const a of attempts) {
      const r = await s.api(a.path, {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        rawBody: a.body,
      });
      if (!isDetailError(r, 413)) failures.push(`${a.path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const health = await s.api('/api/v1/health');
    if (health.status !== 200) failures.push(`health after: ${health.status}`);
    if (
      JSON.stringify(rows()) !== JSON.stringify(before) ||
      count('scraping_rules') !== rulesBefore
    )
      failures.push('a row was added');
    report({
      check: 'input: oversized JSON bodies',
      runs: attempts.length,
      failures: failures.length,
      figure: `${attempts.length - failures.length}/${attempts.length} answered 413 {detail}, 0 rows added, server up`,
    });
    expect(failures).toEqual([]);
  });

  it('answers 400 {detail} to malformed JSON, never a 500', async () => {
    const failures: string[] = [];
    const bodies: { name: string; body: string | Buffer; type?: string; status: number }[] = [
      { name: 'truncated', body: '{"domain": "a.example", "mode": "al', status: 400 },
      { name: 'trailing garbage', body: '{"domain": "a.example"} x', status: 400 },
      {
        name: 'two documents',
        body: '{"domain": "a.example"}{"domain": "b.example"}',
        status: 400,
      },
      { name: 'single quotes', body: "{'domain': 'a.example'}", status: 400 },
      { name: 'trailing comma', body: '{"domain": "a.example",}', status: 400 },
      { name: 'NaN', body: '{"domain": NaN}', status: 400 },
      { name: 'byte-order mark', body: '\uFEFF{"domain": "a.example"}', status: 400 },
      { name: 'empty body', body: '', status: 400 },
      { name: 'whitespace body', body: '   ', status: 400 },
      {
        name: 'invalid UTF-8',
        body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        status: 400,
      },
      { name: 'deep nesting', body: '['.repeat(100_000) + ']'.repeat(100_000), status: 0 },
      {
        name: 'JSON as text/plain',
        body: '{"domain": "a.example"}',
        type: 'text/plain',
        status: 0,
      },
      {
        name: 'JSON as application/xml',
        body: '{"domain": "a.example"}',
        type: 'application/xml',
        status: 415,
      },
    ];
    const rulesBefore = count('scraping_rules');
    for (const b of bodies) {
      const r = await s.api('/api/v1/rules/scraping', {
        method: 'POST',
        key,
        headers: { 'content-type': b.type ?? 'application/json' },
        rawBody: b.body as string,
      });
      // status 0: any 4xx {detail} will do (the question is only "never a 500, never stored").
      if (!isDetailError(r, b.status || undefined))
        failures.push(`${b.name}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    if (count('scraping_rules') !== rulesBefore) failures.push('a rule was stored');
    report({
      check: 'input: malformed JSON bodies',
      runs: bodies.length,
      failures: failures.length,
      figure: `${bodies.length - failures.length}/${bodies.length} refused with 4xx {detail}, 0 5xx, 0 rows`,
    });
    expect(failures).toEqual([]);
  });
});

describe('prototype keys', () => {
  // Every write taking an object, with a body valid but for the key under test.
  const writes: { method: string; path: string; body: Record<string, unknown> }[] = [
    {
      method: 'PUT',
      path: '/api/v1/admin/settings/general',
      body: { settings: { api_title: 'A' } },
    },
    {
      method: 'PUT',
      path: '/api/v1/admin/settings/processing',
      body: { settings: { min_word_count: 30 } },
    },
    { method: 'POST', path: '/api/v1/rules/scraping', body: { domain: 'proto.example' } },
    { method: 'PATCH', path: '/api/v1/rules/scraping/1', body: { enabled: true } },
    {
      method: 'POST',
      path: '/api/v1/admin/models',
      body: { name: 'proto-model', type: 'emotion', repo: 'org/proto', version: '1' },
    },
    { method: 'PUT', path: '/api/v1/admin/models/1', body: { version: '1' } },
    { method: 'POST', path: '/api/v1/snippets/search', body: { query: 'proto' } },
    {
      method: 'POST',
      path: '/api/v1/playground/save-segments',
      body: { title: 't', text: 'Some text.' },
    },
    { method: 'POST', path: '/api/v1/sources/process', body: { urls: ['http://10.0.0.1/'] } },
    {
      method: 'POST',
      path: '/api/v1/admin/maintenance/execute',
      body: { action: 'reset_stuck_jobs' },
    },
    { method: 'POST', path: '/api/v1/auth/login', body: { email: 'x@example.com', password: 'x' } },
  ];
  const payloads: { name: string; add: (b: Record<string, unknown>) => string }[] = [
    { name: '__proto__ at top', add: (b) => inject(b, '"__proto__": {"polluted": "yes"}') },
    {
      name: '__proto__ nested',
      add: (b) => inject(b, '"nested": {"__proto__": {"polluted": "yes"}}'),
    },
    {
      name: 'constructor.prototype at top',
      add: (b) => inject(b, '"constructor": {"prototype": {"polluted": "yes"}}'),
    },
    {
      name: 'constructor.prototype inside settings',
      add: (b) =>
        b.settings
          ? JSON.stringify(b).replace(
              '"settings":{',
              '"settings":{"constructor":{"prototype":{"polluted":"yes"}},',
            )
          : inject(b, '"a": {"constructor": {"prototype": {"polluted": "yes"}}}'),
    },
    { name: 'plain constructor key', add: (b) => inject(b, '"constructor": "yes"') },
    { name: 'plain prototype key', add: (b) => inject(b, '"prototype": {"polluted": "yes"}') },
  ];
  function inject(b: Record<string, unknown>, member: string): string {
    const json = JSON.stringify(b);
    return `{${member}${json === '{}' ? '' : ','}${json.slice(1)}`;
  }

  it('never pollutes Object.prototype; a write is refused with 4xx {detail} or stored as sent', async () => {
    const failures: string[] = [];
    let runs = 0;
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).join();
    for (const w of writes) {
      for (const p of payloads) {
        runs++;
        const r = await s.api(w.path, {
          method: w.method,
          key,
          headers: { 'content-type': 'application/json' },
          rawBody: p.add(w.body),
        });
        const polluted = ({} as Record<string, unknown>).polluted !== undefined;
        if (polluted || Object.getOwnPropertyNames(Object.prototype).join() !== protoKeys)
          failures.push(`${w.method} ${w.path} ${p.name}: Object.prototype changed`);
        // A refusal is a {detail}; an answer below 400 must not hold the key (nothing took it in).
        if (r.status >= 500 || (r.status >= 400 && !isDetailError(r)))
          failures.push(`${w.method} ${w.path} ${p.name}: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status < 400 && /"polluted"/.test(JSON.stringify(r.body)))
          failures.push(`${w.method} ${w.path} ${p.name}: answered the injected key back`);
        if (p.name.startsWith('__proto__') || p.name.startsWith('constructor.prototype')) {
          if (r.status !== 422 || !/refused/.test(String(r.body?.detail)))
            failures.push(`${w.method} ${w.path} ${p.name}: ${r.status} ${JSON.stringify(r.body)}`);
        }
      }
    }
    report({
      check: 'input: __proto__ / constructor / prototype keys',
      runs,
      failures: failures.length,
      figure: `${failures.filter((f) => f.includes('Object.prototype changed')).length} pollutions, ${failures.length} failures / ${runs} writes (${writes.length} routes × ${payloads.length} payloads)`,
    });
    expect(failures).toEqual([]);
  });
});

describe('lone surrogates and NUL', () => {
  const bad = [
    ['lone high surrogate', 'a\uD800b'],
    ['lone low surrogate', 'a\uDC00b'],
    ['NUL', 'a\u0000b'],
  ] as const;
  // Each text field, with the body it sits in and the field the refusal must name.
  const fields: {
    name: string;
    method: string;
    path: string;
    body: (v: string) => unknown;
    field: string;
  }[] = [
    {
      name: 'snippet text',
      method: 'POST',
      path: '/api/v1/playground/save-segments',
      body: (v) => ({ title: 'T', text: `Some words ${v} more words.` }),
      field: 'text',
    },
    {
      name: 'article title',
      method: 'POST',
      path: '/api/v1/playground/save-segments',
      body: (v) => ({ title: v, text: 'Some words.' }),
      field: 'title',
    },
    {
      name: 'rule domain',
      method: 'POST',
      path: '/api/v1/rules/scraping',
      body: (v) => ({ domain: `x${v}.example` }),
      field: 'domain',
    },
    {
      name: 'rule target',
      method: 'POST',
      path: '/api/v1/rules/scraping',
      body: (v) => ({ domain: 'target.example', mode: 'selector', target: v }),
      field: 'target',
    },
    {
      name: 'settings string',
      method: 'PUT',
      path: '/api/v1/admin/settings/general',
      body: (v) => ({ settings: { api_title: v } }),
      field: 'settings.api_title',
    },
    {
      name: 'search query',
      method: 'POST',
      path: '/api/v1/snippets/search',
      body: (v) => ({ query: v }),
      field: 'query',
    },
    {
      name: 'model name',
      method: 'POST',
      path: '/api/v1/admin/models',
      body: (v) => ({ name: v, type: 'emotion', repo: 'org/x', version: '1' }),
      field: 'name',
    },
  ];

  it('refuses them with 422 naming the field, in bodies and queries, storing nothing', async () => {
    const failures: string[] = [];
    let runs = 0;
    const before = { ...rows(), rules: count('scraping_rules') };
    const settingsBefore = JSON.stringify((await s.api('/api/v1/admin/settings', { key })).body);
    for (const f of fields) {
      for (const [what, v] of bad) {
        runs++;
        const r = await s.api(f.path, { method: f.method, key, body: f.body(v) });
        if (!isDetailError(r, 422) || r.body.errors?.[0]?.field !== f.field)
          failures.push(`${f.name} with ${what}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }
    // The listing's search words, in the query string: a NUL is refused like in a body; a lone
    // surrogate cannot be written in a URL, its bytes (ED A0 80) are not UTF-8: refused too.
    for (const [what, q] of [
      ['NUL', 'a%00b'],
      ['surrogate bytes', 'a%ED%A0%80b'],
    ]) {
      runs++;
      const r = await s.api(`/api/v1/snippets?search=${q}`, { key });
      if (!isDetailError(r))
        failures.push(`listing search with ${what}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    if (JSON.stringify({ ...rows(), rules: count('scraping_rules') }) !== JSON.stringify(before))
      failures.push('a row was added');
    if (JSON.stringify((await s.api('/api/v1/admin/settings', { key })).body) !== settingsBefore)
      failures.push('the settings changed');
    report({
      check: 'input: lone surrogates and NUL refused',
      runs,
      failures: failures.length,
      figure: `${runs - failures.length}/${runs} refused with 422 naming the field, 0 rows`,
    });
    expect(failures).toEqual([]);
  });

  it('keeps every other character byte-identical: stored and read back as sent', async () => {
    // Valid UTF-16 that filters often break: a pair, combining marks, noncharacters, line and
    // paragraph separators, RTL, zero-width joiners, a BOM inside, control characters but NUL.
    const tricky =
      'A😀é\u0301\uFFFF\uFFFE\u2028\u2029\u202Eabc\u200D👩‍👩‍👧\uFEFF\u0001\u001F\u007F\uDBFF\uDFFF';
    const failures: string[] = [];
    const created = await s.api('/api/v1/rules/scraping', {
      method: 'POST',
      key,
      body: { domain: 'faithful.example', mode: 'selector', target: tricky },
    });
    const rules = (await s.api('/api/v1/rules/scraping', { key })).body as {
      id: number;
      target: string;
    }[];
    const rule = rules.find((r) => r.id === created.body?.id);
    if (created.status !== 201 || JSON.stringify(rule?.target) !== JSON.stringify(tricky))
      failures.push(
        `rule target: ${created.status} ${JSON.stringify(rule?.target ?? created.body)}`,
      );
    const title = `Title ${tricky}`;
    const saved = await s.api('/api/v1/admin/settings/general', {
      method: 'PUT',
      key,
      body: { settings: { api_title: title } },
    });
    const read = await s.api('/api/v1/admin/settings/general', { key });
    if (saved.status !== 200 || JSON.stringify(read.body.api_title) !== JSON.stringify(title))
      failures.push(`settings api_title: ${saved.status} ${JSON.stringify(read.body.api_title)}`);
    report({
      check: 'input: other text round-trips byte-identically',
      runs: 2,
      failures: failures.length,
      figure: `${2 - failures.length}/2 fields read back JSON-identical (${[...tricky].length} tricky code points)`,
    });
    expect(failures).toEqual([]);
  });
});

describe('every error is a {detail}', () => {
  it("answers the framework's own refusals with {detail}: 404, 405-like, 414, 415, 431, HEAD, OPTIONS", async () => {
    const failures: string[] = [];
    const checks: {
      name: string;
      status: number;
      run: () => Promise<{ status: number; detail: unknown }>;
    }[] = [];
    const viaFetch = (name: string, status: number, p: string, init: RequestInit = {}) =>
      checks.push({
        name,
        status,
        run: async () => {
          const r = await fetch(`${s.url}${p}`, {
            ...init,
            headers: { 'x-api-key': key, ...(init.headers as Record<string, string>) },
          });
          const text = await r.text();
          let detail: unknown;
          try {
            detail = (JSON.parse(text) as { detail?: unknown }).detail;
          } catch {
            detail = undefined;
          }
          return { status: r.status, detail };
        },
      });
    const viaRaw = (name: string, status: number, request: string) =>
      checks.push({
        name,
        status,
        run: async () => {
          const r = await raw(request);
          return { status: rawStatus(r), detail: rawDetail(r) };
        },
      });
    viaFetch('unknown API route', 404, '/api/v1/nowhere');
    viaFetch('unknown method on a route', 404, '/api/v1/health', { method: 'DELETE' });
    viaFetch('OPTIONS', 404, '/api/v1/snippets', { method: 'OPTIONS' });
    viaFetch('unsupported media type', 415, '/api/v1/rules/scraping', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<rule><domain>x</domain></rule>',
    });
    viaFetch('form body', 415, '/api/v1/rules/scraping', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'domain=x',
    });
    viaFetch('path parameter over 100 characters', 414, `/api/v1/snippets/${'1'.repeat(101)}`);
    viaFetch('malformed escape', 400, '/api/v1/snippets/%E0%A4%A');
    viaFetch('not a number id', 422, '/api/v1/snippets/abc');
    viaRaw('URL over 16 KiB', 414, `GET /api/v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    viaRaw('URL over 64 KiB', 414, `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    viaRaw(
      'headers over 16 KiB',
      431,
      `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    viaRaw('not HTTP', 400, 'BLAH\r\n\r\n');
    for (const c of checks) {
      const r = await c.run();
      if (r.status !== c.status || typeof r.detail !== 'string' || !r.detail)
        failures.push(`${c.name}: ${r.status} ${JSON.stringify(r.detail)}`);
    }
    // HEAD answers as GET does, without a body; an unknown HEAD is a 404.
    const head = await fetch(`${s.url}/api/v1/health`, { method: 'HEAD' });
    if (head.status !== 200 || (await head.text()) !== '')
      failures.push(`HEAD health: ${head.status}`);
    const headMissing = await fetch(`${s.url}/api/v1/nowhere`, { method: 'HEAD' });
    if (headMissing.status !== 404) failures.push(`HEAD unknown: ${headMissing.status}`);
    const runs = checks.length + 2;
    report({
      check: "input: framework's own errors as {detail}",
      runs,
      failures: failures.length,
      figure: `${runs - failures.length}/${runs} answers (404, 414, 415, 431, 400, 422, HEAD, OPTIONS) as documented`,
    });
    expect(failures).toEqual([]);
    expect((await s.api('/api/v1/health')).status).toBe(200);
  });
});
