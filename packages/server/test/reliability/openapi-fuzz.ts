import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { saveText, startServer, type TestServer } from '../helpers.js';

/**
 * Schema fuzzing from the server's own OpenAPI document: for every operation, requests made from
 * its JSON schemas (valid values, and values mutated past them), sent to a real server holding
 * some data; every answer must be below 500, have a status the operation documents, and match
 * that status's schema.
 */

type Schema = Record<string, unknown>;

interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** `/api/v1/snippets/{id}` */
  path: string;
  params: Param[];
  body: Schema | null;
  /** Status → its JSON schema, or null when the status is documented without a body schema. */
  responses: Map<string, ValidateFunction | null>;
}

interface FuzzRequest {
  method: string;
  url: string;
  body: unknown;
  /** This request revokes the key it carries (logout, refresh): it gets its own. */
  ownKey: boolean;
}

export interface FuzzResult {
  requests: number;
  operations: number;
  fiveHundreds: number;
  mismatches: number;
  /** Documented 502s: the stub remote answered an error to a fetch. */
  remoteFailures: number;
  /** One line per failure: the request and what was wrong with its answer. */
  failures: string[];
  byStatus: Record<string, number>;
  msByOperation: Record<string, number>;
}

/** OpenAPI 3.0 into what Ajv validates: `nullable`, boolean exclusive bounds. */
export function normalize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalize);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, normalize(s)]));
    } else out[k] = normalize(v);
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[flag] === true) {
      out[flag] = out[bound];
      delete out[bound];
    } else if (out[flag] === false) delete out[flag];
  }
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  delete out.nullable;
  return out;
}

export function operationsOf(doc: { paths: Record<string, Record<string, Schema>> }): Operation[] {
  const ajv = new Ajv({ strict: false, allErrors: false });
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addKeyword('example');
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> })
        ?.content;
      const responses = new Map<string, ValidateFunction | null>();
      for (const [status, r] of Object.entries(
        op.responses as Record<string, { content?: Record<string, { schema?: Schema }> }>,
      )) {
        const schema = r.content?.['application/json']?.schema;
        // An empty schema (a file download) says nothing of the body.
        const says = schema && Object.keys(schema).some((k) => k !== 'description');
        responses.set(status, says ? ajv.compile(normalize(schema) as Schema) : null);
      }
      ops.push({
        method: method.toUpperCase(),
        path,
        params: ((op.parameters ?? []) as Param[]).map((p) => ({
          ...p,
          schema: normalize(p.schema) as Schema,
        })),
        body: content?.['application/json']?.schema
          ? (normalize(content['application/json'].schema) as Schema)
          : null,
        responses,
      });
    }
  }
  return ops;
}

// Values that have broken servers before: empty, blank, control and unpaired characters, paths,
// numbers past double precision, markup, injection, prototype keys.
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDC00x',
  '\uFEFF',
  '..',
  '../../../etc/passwd',
  '..%2F..%2Fetc',
  '/etc/passwd',
  'C:\\Windows\\win.ini',
  '%00',
  '%',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE snippets; --',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '9007199254740993',
  '-9223372036854775809',
  '1.5',
  'null',
  'true',
  '{}',
  '[]',
  '🙂'.repeat(30),
  'é'.repeat(300),
  'x'.repeat(5000),
];
const NASTY_NUMBERS = [-1, 0, -0, 0.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308];

const nastyString = fc.constantFrom(...NASTY_STRINGS);
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.constantFrom(...NASTY_NUMBERS, true, false, null, [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

/**
 * Where a string goes out to the network (URLs), only addresses of the test's own stub or
 * addresses the fetcher refuses before connecting: the suite makes no outside request.
 */
function urlStrings(stub: string): fc.Arbitrary<string> {
  return fc.constantFrom(
    `${stub}/page`,
    `${stub}/missing`,
    `${stub}/page?x=1#y`,
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]:1/',
    'http://0x7f.1/',
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'javascript:alert(1)',
    'not a url',
    '',
    'http://',
  );
}

interface GenContext {
  stub: string;
  /** Integer ids that exist, so valid requests reach past the 404. */
  ids: number[];
}

/** Values a JSON schema accepts (mostly: trimmed-empty strings and the like may still be refused). */
export function valueFor(
  schema: Schema | undefined,
  name: string,
  ctx: GenContext,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (!schema || Object.keys(schema).length === 0) return fc.jsonValue({ maxDepth: 1 });
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants) return fc.oneof(...variants.map((v) => valueFor(v, name, ctx, depth)));
  if (Array.isArray(schema.allOf)) return valueFor(schema.allOf[0] as Schema, name, ctx, depth);
  const type = Array.isArray(schema.type) ? (schema.type[0] as string) : (schema.type as string);
  switch (type) {
    case 'string': {
      if (/url/i.test(name)) return urlStrings(ctx.stub);
      if (schema.format === 'email') return fc.emailAddress();
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = Math.min((schema.maxLength as number | undefined) ?? 60, min + 60);
      if (typeof schema.pattern === 'string') {
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((s) => s.length >= min && s.length <= max);
      }
      return fc.oneof(
        fc.string({ minLength: min, maxLength: max }),
        fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }),
      );
    }
    case 'integer': {
      const min = Math.max((schema.minimum as number | undefined) ?? -1e9, -1e9);
      const max = Math.min((schema.maximum as number | undefined) ?? 1e9, 1e9);
      const lo = schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + 1 : min;
      const hi = schema.exclusiveMaximum !== undefined ? Number(schema.exclusiveMaximum) - 1 : max;
      const small = fc.integer({ min: Math.max(lo, 0), max: Math.min(hi, Math.max(lo, 0) + 20) });
      const known = ctx.ids.filter((i) => i >= lo && i <= hi);
      return fc.oneof(
        small,
        fc.integer({ min: lo, max: hi }),
        ...(known.length && /id$/i.test(name) ? [fc.constantFrom(...known)] : []),
      );
    }
    case 'number': {
      const min = Math.max((schema.minimum as number | undefined) ?? -1e9, -1e9);
      const max = Math.min((schema.maximum as number | undefined) ?? 1e9, 1e9);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = Math.min((schema.maxItems as number | undefined) ?? 4, min + 4);
      return fc.array(valueFor(schema.items as Schema, name, ctx, depth + 1), {
        minLength: min,
        maxLength: max,
      });
    }
    case 'object':
    default: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const keys = Object.keys(props);
      if (keys.length === 0) {
        const extra = schema.additionalProperties;
        if (extra === false || depth > 2) return fc.constant({});
        return fc.dictionary(
          fc.string({ maxLength: 12 }),
          valueFor(typeof extra === 'object' ? (extra as Schema) : undefined, name, ctx, depth + 1),
          { maxKeys: 3 },
        );
      }
      return fc.record(
        Object.fromEntries(keys.map((k) => [k, valueFor(props[k], k, ctx, depth + 1)])),
        { requiredKeys: required.filter((k) => keys.includes(k)) },
      );
    }
  }
}

/** A value past the schema: a nasty scalar, or for objects one field broken, dropped or added. */
function mutantFor(
  schema: Schema | undefined,
  name: string,
  ctx: GenContext,
): fc.Arbitrary<unknown> {
  const props = (schema?.properties ?? null) as Record<string, Schema> | null;
  if (!props || Object.keys(props).length === 0) return nastyValue;
  const valid = valueFor(schema, name, ctx) as fc.Arbitrary<Record<string, unknown>>;
  const keys = Object.keys(props);
  return fc.oneof(
    nastyValue,
    fc
      .tuple(valid, fc.constantFrom(...keys), nastyValue)
      .map(([v, k, bad]) => ({ ...v, [k]: bad })),
    fc.tuple(valid, fc.constantFrom(...keys)).map(([v, k]) => {
      const copy = { ...v };
      delete copy[k];
      return copy;
    }),
    fc
      .tuple(
        valid,
        fc.constantFrom('__proto__', 'constructor', 'unknown_field', '\u0000', ''),
        nastyValue,
      )
      // Defined as own properties, as JSON.parse makes them on the server.
      .map(
        ([v, k, bad]) =>
          JSON.parse(
            JSON.stringify(v).replace(
              /^\{/,
              `{${JSON.stringify(k)}:${JSON.stringify(bad)}${Object.keys(v).length ? ',' : ''}`,
            ),
          ) as unknown,
      ),
  );
}

// '.' and '..' would be resolved away by the URL parser before the server sees them; an
// unpaired surrogate, which encodeURIComponent refuses, goes as its 3 bytes (not valid UTF-8).
const encodeSegment = (s: string) =>
  s
    .split(/([\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF])/)
    .map((part) => {
      if (part.length !== 1 || !/[\uD800-\uDFFF]/.test(part)) return encodeURIComponent(part);
      const c = part.charCodeAt(0);
      return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    })
    .join('')
    .replace(/\./g, '%2E');

function requestsFor(op: Operation, ctx: GenContext): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const part = (p: Param, broken: boolean) =>
    broken ? fc.oneof(nastyString, fc.string({ maxLength: 20 })) : valueFor(p.schema, p.name, ctx);
  const build = (broken: 'none' | 'path' | 'query' | 'body') =>
    fc
      .record({
        path: fc.tuple(...pathParams.map((p) => part(p, broken === 'path')), fc.constant(0)),
        query: fc.tuple(
          ...queryParams.map((p) =>
            p.required
              ? part(p, broken === 'query')
              : fc.option(part(p, broken === 'query'), { nil: undefined, freq: 2 }),
          ),
          fc.constant(0),
        ),
        body: op.body
          ? broken === 'body'
            ? mutantFor(op.body, '', ctx)
            : valueFor(op.body, '', ctx)
          : fc.constant(undefined),
      })
      .map(({ path, query, body }) => {
        let url = op.path;
        pathParams.forEach((p, i) => {
          url = url.replace(`{${p.name}}`, encodeSegment(String(path[i])));
        });
        const qs = new URLSearchParams();
        queryParams.forEach((p, i) => {
          const v = query[i];
          if (v !== undefined) qs.append(p.name, typeof v === 'string' ? v : JSON.stringify(v));
        });
        if (qs.size) url += `?${qs.toString()}`;
        return {
          method: op.method,
          url,
          body,
          ownKey: /\/auth\/(logout|refresh)$/.test(op.path),
        };
      });
  const broken: ('path' | 'query' | 'body')[] = [];
  if (pathParams.length) broken.push('path');
  if (queryParams.length) broken.push('query');
  if (op.body) broken.push('body');
  return broken.length ? fc.oneof(build('none'), ...broken.map((b) => build(b))) : build('none');
}

/** The local stub behind every outgoing URL: a page for fetch-url, 404 for the hub and the encyclopedia. */
export async function startStub(): Promise<{
  url: string;
  port: number;
  close: () => Promise<void>;
}> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/page')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Stub page</title></head><body><article><p>' +
          'The stub page speaks of rivers and mountains in a few plain sentences. '.repeat(8) +
          '</p></article></body></html>',
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface FuzzServer {
  s: TestServer;
  key: string;
  ops: Operation[];
  ctx: GenContext;
  close: () => Promise<void>;
}

/** A real server with a few snippets, a rule and a backup, behind a stub for every outgoing call. */
export async function fuzzServer(): Promise<FuzzServer> {
  const stub = await startStub();
  const s = await startServer({
    env: {
      ADAM_WIKIPEDIA_URL: `${stub.url}/wiki-{lang}`,
      ADAM_MODEL_HUB_URL: stub.url,
      ADAM_FETCH_ALLOW: `127.0.0.1:${stub.port}`,
      ADAM_WORKERS: '1',
    },
  });
  const key = await s.login();
  const ids: number[] = [];
  for (const text of [
    'Rivers carry water from the mountains down to the sea. They shape valleys over many thousands of years, and people have always settled along their banks.',
    'La photosynthèse transforme la lumière en énergie chimique. Les plantes vertes en dépendent pour croître, et la vie sur Terre en dépend à son tour.',
  ]) {
    ids.push(...(await saveText(s, key, text)).snippet_ids);
  }
  await s.api('/api/v1/rules/scraping', {
    method: 'POST',
    key,
    body: { domain: 'example.org', mode: 'selector', target: 'article', enabled: true },
  });
  await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
  const doc = (await s.api('/api/docs/json')).body as {
    paths: Record<string, Record<string, Schema>>;
  };
  const ops = operationsOf(doc);
  return {
    s,
    key,
    ops,
    ctx: { stub: stub.url, ids: [...ids, 1, 2, 3] },
    close: async () => {
      await s.close();
      await stub.close();
    },
  };
}

// The realtime channel is a WebSocket: a plain GET is not what it documents (its own tests cover it).
const SKIPPED = new Set(['GET /api/v1/ws']);

/** These may end the fuzzer's own session (one of its user's, or all of them): it logs in again. */
const ENDS_SESSIONS = new Set([
  'DELETE /api/v1/auth/sessions/{id}',
  'POST /api/v1/auth/sessions/revoke-others',
  'DELETE /api/v1/admin/users/{id}/sessions',
]);

/**
 * Sends `runs` requests per operation (fixed by `seed`) and checks every answer. Operations
 * that end the key they carry get a fresh key each; one that stops the workers is followed by
 * a start, so later saves still complete.
 */
export async function fuzzAll(
  f: FuzzServer,
  opts: { seed: number; runs: number },
): Promise<FuzzResult> {
  const result: FuzzResult = {
    requests: 0,
    operations: 0,
    fiveHundreds: 0,
    mismatches: 0,
    remoteFailures: 0,
    failures: [],
    byStatus: {},
    msByOperation: {},
  };
  let fresh = 0;
  const freshKey = async () => {
    // In-process, from an address of its own: the fuzzed logins may have throttled ours.
    const r = await f.s.adam.services.auth.login(
      { email: f.s.config.adminEmail, password: f.s.config.adminPassword },
      `198.51.100.${++fresh % 250}`,
    );
    return r.api_key!;
  };
  for (const [i, op] of f.ops.entries()) {
    const name = `${op.method} ${op.path}`;
    if (SKIPPED.has(name)) continue;
    result.operations++;
    const started = performance.now();
    const requests = fc.sample(requestsFor(op, f.ctx), { seed: opts.seed + i, numRuns: opts.runs });
    for (const req of requests) {
      const key = req.ownKey ? await freshKey() : f.key;
      const headers: Record<string, string> = { 'x-api-key': key };
      let body: string | undefined;
      if (req.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(req.body);
      }
      const res = await fetch(`${f.s.url}${req.url}`, { method: req.method, headers, body });
      const text = await res.text();
      result.requests++;
      const status = String(res.status);
      result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
      if (res.status === 502) result.remoteFailures++;
      const problem = check(op, res.status, res.headers.get('content-type') ?? '', text);
      if (problem) {
        if (res.status >= 500) result.fiveHundreds++;
        else result.mismatches++;
        result.failures.push(
          `${name} → ${status} ${problem}; sent ${req.method} ${req.url.slice(0, 200)} ${(body ?? '').slice(0, 300)}; got ${text.slice(0, 300)}`,
        );
      }
      if (ENDS_SESSIONS.has(name)) f.key = await freshKey();
      if (name === 'POST /api/v1/admin/maintenance/workers/stop') {
        await f.s.api('/api/v1/admin/maintenance/workers/start', {
          method: 'POST',
          key: f.key,
          body: { count: 1 },
        });
      }
    }
    result.msByOperation[name] = Math.round(performance.now() - started);
  }
  return result;
}

function check(op: Operation, status: number, contentType: string, text: string): string | null {
  const code = String(status);
  // 502 is the documented answer of the calls that fetch a remote page when the remote fails
  // (the stub answers 404 to most); any other 5xx is the server's own failure.
  if (status >= 500 && !(status === 502 && op.responses.has(code))) return 'server error';
  if (status === 204) return text === '' ? null : 'a 204 with a body';
  if (!op.responses.has(code))
    return `status not documented (documented: ${[...op.responses.keys()].join(', ')})`;
  const validate = op.responses.get(code);
  if (!validate) return null;
  if (!contentType.includes('application/json')) return `not JSON (${contentType})`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'body is not valid JSON';
  }
  if (validate(value)) return null;
  const e = validate.errors?.[0];
  return `schema mismatch at ${e?.instancePath || '(root)'}: ${e?.message}`;
}

/** "0 5xx, 0 schema mismatches / 1305 requests over 87 operations (seed 1313; 200: 412, ...)" */
export function fuzzFigure(r: FuzzResult, seed: number): string {
  const statuses = Object.entries(r.byStatus)
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  return `${r.fiveHundreds} 5xx, ${r.mismatches} schema mismatches / ${r.requests} requests over ${r.operations} operations (seed ${seed}; ${statuses})`;
}
