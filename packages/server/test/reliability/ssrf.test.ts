import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRepoFiles } from '../../src/embedding/hub-download.js';
import {
  SafeFetcher,
  type HostLookup,
  type ResolvedAddress,
} from '../../src/scraping/safe-fetcher.js';
import { EncyclopediaClient } from '../../src/scraping/wikipedia.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.js';
import { startServer, type TestServer } from '../helpers.js';
import { until } from '../until.js';
import { recordConnects, startCanary, type Canary, type ConnectAttempt } from './canary.js';
import { report } from './report.js';

/**
 * SSRF: every way of writing a loopback, private or non-http target, reached directly or by
 * redirect, through every entry point that takes a URL (the URL playground, the process-URLs
 * job, the encyclopedia client, the model hub client), is refused with a clear reason, and a
 * canary listening on loopback counts 0 connections. The server allows the fixture site's port
 * only (ADAM_FETCH_ALLOW), never the canary's.
 */

let canary: Canary;
let site: FixtureSite;
let s: TestServer;
let key: string;
let serverPort: string;
/** A scraping rule 'allow' for 127.0.0.1: a rule decides how to scrape, never what to reach. */
let allowRule: number;

beforeAll(async () => {
  canary = await startCanary();
  site = await startFixtureSite();
  s = await startServer({
    env: {
      ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
      // An operator may point both clients anywhere: at the canary they must be refused too.
      ADAM_WIKIPEDIA_URL: `http://127.0.0.1:${canary.port}/{lang}`,
      ADAM_MODEL_HUB_URL: `http://127.0.0.1:${canary.port}`,
    },
  });
  serverPort = new URL(s.url).port;
  key = await s.login();
  for (const domain of ['127.0.0.1', 'localhost', '169.254.169.254']) {
    const r = await post('/rules/scraping', { domain, mode: 'allow' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    allowRule ??= r.body.id as number;
  }
});

afterAll(async () => {
  await s?.close();
  await site?.close();
  await canary?.close();
});

interface Form {
  name: string;
  url: string;
}

/** Loopback, reached in every spelling, each on its own path so a leak names its form. */
function loopbackForms(port: number, sitePort: number): Form[] {
  const pub = `127.0.0.1:${sitePort}`; // the allowed "public" site
  const forms: [string, string][] = [
    ['dotted', `http://127.0.0.1:${port}`],
    ['short', `http://127.1:${port}`],
    ['decimal', `http://2130706433:${port}`],
    ['hex', `http://0x7f000001:${port}`],
    ['dotted hex', `http://0x7f.0.0.1:${port}`],
    ['dotted octal', `http://0177.0.0.1:${port}`],
    ['octal', `http://017700000001:${port}`],
    ['zero-padded', `http://127.000.000.001:${port}`],
    ['other loopback', `http://127.0.0.2:${port}`],
    ['localhost', `http://localhost:${port}`],
    ['LOCALHOST.', `http://LOCALHOST.:${port}`],
    ['[::1]', `http://[::1]:${port}`],
    ['IPv4-mapped', `http://[::ffff:127.0.0.1]:${port}`],
    ['IPv4-mapped hex', `http://[::ffff:7f00:1]:${port}`],
    ['IPv4-translated', `http://[::ffff:0:7f00:1]:${port}`],
    ['NAT64', `http://[64:ff9b::7f00:1]:${port}`],
    ['IPv4-compatible', `http://[::127.0.0.1]:${port}`],
    ['6to4', `http://[2002:7f00:1::1]:${port}`],
    ['0.0.0.0', `http://0.0.0.0:${port}`],
    ['0', `http://0:${port}`],
    ['[::]', `http://[::]:${port}`],
    ['userinfo public@', `http://${pub}@127.0.0.1:${port}`],
    ['userinfo user:pw@', `http://public.example:x@127.0.0.1:${port}`],
    ['percent-encoded', `http://%31%32%37.0.0.1:${port}`],
    ['ideographic dots', `http://127。0。0。1:${port}`],
    ['fullwidth', `http://１２７．０．０．１:${port}`],
    ['trailing dot', `http://127.0.0.1.:${port}`],
    ['no scheme', `127.0.0.1:${port}`],
    ['https', `https://127.0.0.1:${port}`],
    ['ws', `ws://127.0.0.1:${port}`],
    ['ftp', `ftp://127.0.0.1:${port}`],
    ['gopher', `gopher://127.0.0.1:${port}/_GET%20/`],
  ];
  const out = forms.map(([name, base], i) => ({ name, url: `${base}/f/${i}` }));
  // '#@public': the fragment hides the public host; the host is the canary.
  out.push({ name: 'fragment #@public', url: `http://127.0.0.1:${port}/f/frag#@${pub}/` });
  out.push({ name: 'file', url: 'file:///etc/passwd' });
  out.push({ name: 'data', url: 'data:text/plain,canary' });
  out.push({ name: 'javascript', url: 'javascript:fetch("http://127.0.0.1/")' });
  out.push({ name: 'IPv6 zone', url: `http://[fe80::1%25lo]:${port}/f/zone` });
  return out;
}

/** Private ranges: unreachable here, so the promise is the refusal before any connection. */
const PRIVATE_FORMS: Form[] = [
  ['10/8', 'http://10.0.0.1/'],
  ['10/8 top', 'http://10.255.255.254/'],
  ['10/8 hex', 'http://0x0a000001/'],
  ['172.16/12', 'http://172.16.0.1/'],
  ['172.16/12 top', 'http://172.31.255.254/'],
  ['192.168/16', 'http://192.168.1.1/'],
  ['metadata', 'http://169.254.169.254/latest/meta-data/'],
  ['metadata decimal', 'http://2852039166/latest/meta-data/'],
  ['metadata mapped', 'http://[::ffff:169.254.169.254]/latest/meta-data/'],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/latest/meta-data/'],
  ['100.64/10', 'http://100.64.0.1/'],
  ['100.64/10 top', 'http://100.127.255.254/'],
  ['fc00::/7', 'http://[fc00::1]/'],
  ['fd00::/8', 'http://[fd12:3456::1]/'],
  ['fe80::/10', 'http://[fe80::1]/'],
  ['mapped 10/8', 'http://[::ffff:10.0.0.1]/'],
  ['broadcast', 'http://255.255.255.255/'],
  ['multicast', 'http://224.0.0.1/'],
  // A query of its own: the job keeps one of two URLs that normalise alike (0x0a000001, 10.0.0.1).
].map(([name, url], i) => ({ name: name!, url: `${url}?form=${i}` }));

/** What makes a refusal clear: the answer says why, naming the rule it hit. */
const CLEAR_REASON =
  /refused|invalid url|only http|not a valid http|user name or password|credentials/i;

type Outcome = { refused: true; reason: string } | { refused: false; what: string };

const post = (p: string, body?: unknown) => s.api(`/api/v1${p}`, { method: 'POST', key, body });

/** The URL playground (trying a chosen rule or not): a 4xx with a detail that says why. */
async function viaPlayground(url: string, ruleId?: number): Promise<Outcome> {
  const r = await post('/playground/fetch-url', { url, rule_id: ruleId });
  const detail = String(r.body?.detail ?? '');
  if ((r.status === 400 || r.status === 422) && CLEAR_REASON.test(detail))
    return { refused: true, reason: detail };
  return { refused: false, what: `${r.status} ${detail || JSON.stringify(r.body).slice(0, 200)}` };
}

/**
 * The process-URLs job: a URL refused at the door (422 naming it) or failed by the job with a
 * fetch refusal as its reason. All URLs go in one job; the door's refusals are split off first.
 */
async function viaJob(urls: string[]): Promise<Outcome[]> {
  const out: Outcome[] = urls.map(() => ({ refused: false, what: 'no answer' }));
  let rest = urls.map((url, i) => ({ url, i }));
  const first = await post('/sources/process', { urls });
  if (first.status === 422) {
    const errors = (first.body.errors ?? []) as { field: string; message: string }[];
    const refusedAt = new Set<number>();
    for (const e of errors) {
      const i = Number(/^urls\[(\d+)\]$/.exec(e.field)?.[1]);
      if (Number.isInteger(i) && CLEAR_REASON.test(e.message)) {
        out[i] = { refused: true, reason: `422 ${e.message}` };
        refusedAt.add(i);
      }
    }
    rest = rest.filter((u) => !refusedAt.has(u.i));
  } else if (first.status !== 200) {
    throw new Error(`process answered ${first.status}: ${JSON.stringify(first.body)}`);
  }
  if (!rest.length) return out;
  const r =
    first.status === 200 ? first : await post('/sources/process', { urls: rest.map((u) => u.url) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  // The answer lists the URLs as stored (normalised), in the order given.
  const stored = r.body.urls as string[];
  expect(stored).toHaveLength(rest.length);
  const job = await s.adam.services.jobs.waitForEnd(r.body.job_id as number, 60_000);
  const byUrl = new Map(job.errors.map((e) => [e.url, e]));
  rest.forEach(({ i }, k) => {
    const e = byUrl.get(stored[k]!);
    if (
      e &&
      /^fetch_(blocked_address|bad_scheme|invalid_url)$/.test(e.type) &&
      CLEAR_REASON.test(e.message)
    )
      out[i] = { refused: true, reason: `job ${job.status}: ${e.type} ${e.message}` };
    else out[i] = { refused: false, what: `job ${job.status}: ${JSON.stringify(e ?? 'no error')}` };
  });
  if (out.every((o) => o.refused)) expect(job.status).toBe('failed');
  return out;
}

/**
 * The encyclopedia client, its base URL set to the form, on the server's own fetcher (its base
 * URL is configuration read at start; the check below proves the server wires it this way).
 */
async function viaEncyclopedia(baseUrl: string): Promise<Outcome> {
  const client = new EncyclopediaClient({ baseUrl, fetcher: s.adam.services.fetcher });
  try {
    const a = await client.fetchArticle('Honey bee', 'en');
    return { refused: false, what: `fetched ${a.url}` };
  } catch (e) {
    const err = e as Error & { status?: number; code?: string };
    if ((err.status === 400 || err.status === 422) && CLEAR_REASON.test(err.message))
      return { refused: true, reason: err.message };
    return { refused: false, what: `${err.code ?? err.name}: ${err.message}` };
  }
}

/** The model hub client, its hub URL set to the form, on the server's own fetcher. */
async function viaHub(hubUrl: string): Promise<Outcome> {
  try {
    await listRepoFiles({
      fetcher: s.adam.services.fetcher,
      hubUrl,
      repo: 'acme/tiny',
      revision: 'main',
    });
    return { refused: false, what: 'listed' };
  } catch (e) {
    const err = e as Error & { code?: string };
    if ((err.code === 'blocked' || err.code === 'invalid') && CLEAR_REASON.test(err.message))
      return { refused: true, reason: err.message };
    return { refused: false, what: `${err.code ?? err.name}: ${err.message}` };
  }
}

const ENTRY_POINTS = ['playground', 'rule try-out', 'job', 'encyclopedia', 'hub'] as const;

/** Runs every URL through every entry point; the failures name entry point, form and answer. */
async function throughEveryEntryPoint(forms: Form[]) {
  const failures: string[] = [];
  const reasons: string[] = [];
  const note = (entry: string, f: Form, o: Outcome) => {
    if (o.refused) reasons.push(`${entry} ${f.name}: ${o.reason}`);
    else failures.push(`${entry} ${f.name} (${f.url}): not refused: ${o.what}`);
  };
  for (const f of forms) {
    note('playground', f, await viaPlayground(f.url));
    note('rule try-out', f, await viaPlayground(f.url, allowRule));
    note('encyclopedia', f, await viaEncyclopedia(f.url));
    note('hub', f, await viaHub(f.url));
  }
  const jobs = await viaJob(forms.map((f) => f.url));
  forms.forEach((f, i) => note('job', f, jobs[i]!));
  return { failures, reasons, runs: forms.length * ENTRY_POINTS.length };
}

/** Connections other than the test's own to the server and to the allowed fixture site. */
function foreign(attempts: ConnectAttempt[]): ConnectAttempt[] {
  return attempts.filter(
    (a) =>
      !(
        a.hostname === '127.0.0.1' &&
        (String(a.port) === serverPort || String(a.port) === String(site.port))
      ),
  );
}

/** How many http forms reach the canary with a plain client: proof the canary is a target. */
async function unguardedReach(forms: Form[]): Promise<number> {
  const tried = forms.filter((f) => f.url.startsWith('http:') && URL.canParse(f.url));
  const before = canary.paths.length;
  // At once, with a short time-out: a few spellings (NAT64, 6to4) go nowhere here and hang.
  await Promise.all(
    tried.map(
      (f) =>
        new Promise<void>((resolve) => {
          const req = http.get(new URL(f.url), { agent: false }, (res) => {
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', () => resolve());
          req.setTimeout(1000, () => req.destroy());
        }),
    ),
  );
  const seen = canary.paths.slice(before).join('\n');
  return tried.filter((f) => seen.includes(` ${new URL(f.url).pathname}`)).length;
}

describe('SSRF: blocked addresses through every entry point', () => {
  it('refuses every form of a loopback or non-http target; the canary counts 0 hits', async () => {
    const forms = loopbackForms(canary.port, site.port);
    // The control: a plain client reaches the canary through most of these spellings.
    const reachable = await unguardedReach(forms);
    const hitsBefore = canary.hits();
    const rec = recordConnects();
    let result;
    try {
      result = await throughEveryEntryPoint(forms);
    } finally {
      rec.stop();
    }
    const hits = canary.hits() - hitsBefore;
    const leaks = foreign(rec.attempts);
    report({
      check: 'ssrf: loopback forms × entry points',
      runs: result.runs,
      failures: result.failures.length + hits,
      figure: `${hits} canary hits / ${forms.length} forms × ${ENTRY_POINTS.length} entry points (${reachable} forms reach the canary unguarded)`,
    });
    expect(reachable).toBeGreaterThanOrEqual(15);
    expect(result.failures).toEqual([]);
    expect(hits, canary.paths.join('\n')).toBe(0);
    expect(leaks).toEqual([]);
  });

  it('refuses private, link-local and metadata addresses before any connection attempt', async () => {
    const rec = recordConnects();
    let result;
    try {
      result = await throughEveryEntryPoint(PRIVATE_FORMS);
    } finally {
      rec.stop();
    }
    const attempts = foreign(rec.attempts);
    // The reason names the range: the address was judged, not merely unreachable.
    const vague = result.reasons.filter(
      (r) => !/private network|link-local|carrier-grade|unique-local|broadcast|multicast/.test(r),
    );
    report({
      check: 'ssrf: private ranges × entry points',
      runs: result.runs,
      failures: result.failures.length + attempts.length + vague.length,
      figure: `${attempts.length} connection attempts / ${PRIVATE_FORMS.length} private forms × ${ENTRY_POINTS.length} entry points`,
    });
    expect(result.failures).toEqual([]);
    expect(vague).toEqual([]);
    expect(attempts).toEqual([]);
  });

  it('refuses with a lookup never asked and no socket opened for literal private addresses', async () => {
    let lookups = 0;
    const fetcher = new SafeFetcher({
      allow: [],
      lookup: async () => {
        lookups++;
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
    const rec = recordConnects();
    const codes: string[] = [];
    try {
      for (const f of PRIVATE_FORMS) {
        codes.push(
          await fetcher.fetch(f.url).then(
            () => 'fetched',
            (e: { code?: string }) => e.code ?? 'error',
          ),
        );
      }
    } finally {
      rec.stop();
      await fetcher.close();
    }
    expect(
      codes.every((c) => c === 'blocked_address'),
      codes.join(','),
    ).toBe(true);
    expect(lookups).toBe(0);
    expect(rec.attempts).toEqual([]);
  });
});

/** A URL on the allowed site that redirects `hops` times, the last hop to `target`. */
function redirectChain(target: string, hops: number): string {
  let url = target;
  for (let i = 0; i < hops; i++) url = `${site.url}/redirect/to?url=${encodeURIComponent(url)}`;
  return url;
}

describe('SSRF: redirects', () => {
  const targets = () => [
    { name: 'loopback', url: `http://127.0.0.1:${canary.port}/r` },
    { name: 'decimal', url: `http://2130706433:${canary.port}/r` },
    { name: 'short hex', url: `http://0x7f.1:${canary.port}/r` },
    { name: '[::1]', url: `http://[::1]:${canary.port}/r` },
    { name: 'IPv4-mapped', url: `http://[::ffff:7f00:1]:${canary.port}/r` },
    { name: 'localhost', url: `http://localhost:${canary.port}/r` },
    { name: '0.0.0.0', url: `http://0.0.0.0:${canary.port}/r` },
    { name: 'metadata', url: 'http://169.254.169.254/latest/meta-data/' },
    { name: '10/8', url: 'http://10.0.0.1/' },
    { name: 'file', url: 'file:///etc/passwd' },
    { name: 'gopher', url: `gopher://127.0.0.1:${canary.port}/_GET%20/` },
  ];

  it('refuses a redirect to a blocked address at the 1st, 3rd and 5th hop; 0 canary hits', async () => {
    const forms: Form[] = [];
    for (const hops of [1, 3, 5])
      for (const t of targets())
        // The clients append their own path and query: '&x=' keeps it out of the target.
        forms.push({ name: `${t.name} at hop ${hops}`, url: `${redirectChain(t.url, hops)}&x=` });
    const hitsBefore = canary.hits();
    const siteBefore = site.hits.length;
    const rec = recordConnects();
    let result;
    try {
      result = await throughEveryEntryPoint(forms);
    } finally {
      rec.stop();
    }
    const hits = canary.hits() - hitsBefore;
    const leaks = foreign(rec.attempts);
    // Refused at the hop itself (the reason names a redirect), not before the chain started.
    const early = result.reasons.filter((r) => !/redirect/i.test(r));
    report({
      check: 'ssrf: redirects to blocked targets (hops 1, 3, 5)',
      runs: result.runs,
      failures: result.failures.length + hits + leaks.length + early.length,
      figure: `${hits} canary hits / ${targets().length} targets × 3 hops × ${ENTRY_POINTS.length} entry points`,
    });
    expect(result.failures).toEqual([]);
    expect(early).toEqual([]);
    expect(hits, canary.paths.join('\n')).toBe(0);
    expect(leaks).toEqual([]);
    expect(site.hits.length).toBeGreaterThan(siteBefore);
  });

  it('gives up on a chain longer than 5 redirects with a clear reason, and follows 5', async () => {
    const five = await post('/playground/fetch-url', { url: `${site.url}/redirect/hops/5` });
    expect(five.status, JSON.stringify(five.body)).toBe(200);
    const hitsBefore = canary.hits();
    const six = await post('/playground/fetch-url', { url: `${site.url}/redirect/hops/6` });
    // Six hops whose last one is the canary: the limit stops it before the canary is vetted.
    const sixToCanary = await post('/playground/fetch-url', {
      url: redirectChain(`http://127.0.0.1:${canary.port}/six`, 6),
    });
    const job = await viaJobRaw([`${site.url}/redirect/hops/6`]);
    const hits = canary.hits() - hitsBefore;
    const clear = (d: string) => /more than 5 redirects/.test(d);
    const failures = [
      six.status === 502 && clear(six.body.detail),
      sixToCanary.status === 502 && clear(sixToCanary.body.detail),
      job.type === 'fetch_too_many_redirects' && clear(job.message),
    ].filter((ok) => !ok).length;
    report({
      check: 'ssrf: redirect chain longer than 5',
      runs: 3,
      failures: failures + hits,
      figure: `6 hops refused (${six.status} "more than 5 redirects"), 5 followed, ${hits} canary hits`,
    });
    expect(six.status).toBe(502);
    expect(six.body.detail).toMatch(/more than 5 redirects/);
    expect(sixToCanary.body.detail).toMatch(/more than 5 redirects/);
    expect(job).toMatchObject({ type: 'fetch_too_many_redirects' });
    expect(job.message).toMatch(/more than 5 redirects/);
    expect(hits).toBe(0);
  });
});

/** One URL through the process-URLs job: its error. */
async function viaJobRaw(urls: string[]) {
  const r = await post('/sources/process', { urls });
  expect(r.status).toBe(200);
  const job = await s.adam.services.jobs.waitForEnd(r.body.job_id as number, 60_000);
  expect(job.status).toBe('failed');
  return job.errors[0]!;
}

describe('SSRF: DNS answers', () => {
  /**
   * The fixture site on 127.0.0.1:P stands for a public server (the allow-list opens that
   * address and port, as the policy would open a public address); a second canary on
   * 127.0.0.2:P is where a rebinding answer points. Same port, so only the address differs.
   */
  let rebound: Canary;
  beforeAll(async () => {
    rebound = await startCanary(['127.0.0.2'], site.port);
  });
  afterAll(async () => {
    await rebound?.close();
  });

  function scriptedLookup(answers: ResolvedAddress[][]) {
    const calls: string[] = [];
    const lookup: HostLookup = async (hostname) => {
      calls.push(hostname);
      return answers[Math.min(calls.length, answers.length) - 1]!;
    };
    return { lookup, calls };
  }
  const PUBLIC = { address: '127.0.0.1', family: 4 }; // opened by the allow-list entry
  const REBOUND = { address: '127.0.0.2', family: 4 };

  it('connects to the address it checked when DNS answers differently afterwards', async () => {
    const { lookup, calls } = scriptedLookup([[PUBLIC], [REBOUND]]);
    const fetcher = new SafeFetcher({ allow: [`127.0.0.1:${site.port}`], lookup, timeoutMs: 5000 });
    const siteBefore = site.hits.length;
    const rec = recordConnects();
    let first, second;
    try {
      first = await fetcher.fetch(`http://rebind.test:${site.port}/articles/honeybees`);
      // The next fetch asks again, gets the loopback answer and refuses it.
      second = await fetcher.fetch(`http://rebind.test:${site.port}/articles/honeybees`).then(
        () => 'fetched',
        (e: { code?: string }) => e.code,
      );
    } finally {
      rec.stop();
      await fetcher.close();
    }
    const siteSeen = site.hits.slice(siteBefore);
    // A chain whose name rebinds between hops: each hop asks DNS once and is judged again.
    const hop = scriptedLookup([[PUBLIC], [REBOUND]]);
    const hopFetcher = new SafeFetcher({
      allow: [`127.0.0.1:${site.port}`],
      lookup: hop.lookup,
      timeoutMs: 5000,
    });
    const viaRedirect = await hopFetcher
      .fetch(`http://rebind.test:${site.port}/redirect/hops/2`)
      .then(
        (r) => `fetched ${r.url}`,
        (e: { code?: string; message: string }) => e.code,
      );
    await hopFetcher.close();
    const hits = rebound.hits();
    const failures =
      Number(first.status !== 200) +
      Number(second !== 'blocked_address') +
      Number(viaRedirect !== 'blocked_address') +
      Number(calls.length !== 2) +
      Number(hop.calls.length !== 2) +
      hits;
    report({
      check: 'ssrf: DNS rebinding between check and connect',
      runs: 3,
      failures,
      figure: `${hits} hits on the rebound address; 1 lookup per hop (${calls.length + hop.calls.length} for 4 hops)`,
    });
    expect(first.status).toBe(200);
    expect(siteSeen).toEqual(['/articles/honeybees']);
    expect(site.requests.at(-1)?.host).toBe(`rebind.test:${site.port}`);
    // Connected to the name's vetted address: the socket's lookup is the pinned answer.
    expect(rec.attempts.map((a) => a.hostname)).toEqual(['rebind.test']);
    expect(second).toBe('blocked_address');
    expect(viaRedirect).toBe('blocked_address');
    expect(calls).toEqual(['rebind.test', 'rebind.test']);
    expect(hop.calls).toHaveLength(2);
    expect(hits).toBe(0);
  });

  it('refuses a name when any of its answers is blocked, whatever the order', async () => {
    // The allow-list opens 127.0.0.1 on the site's port; only the last two cases use it.
    const mixed: [string, ResolvedAddress[], string[]?][] = [
      [
        'public A + loopback AAAA',
        [
          { address: '93.184.216.34', family: 4 },
          { address: '::1', family: 6 },
        ],
      ],
      [
        'loopback AAAA + public A',
        [
          { address: '::1', family: 6 },
          { address: '93.184.216.34', family: 4 },
        ],
      ],
      [
        'public AAAA + private A',
        [
          { address: '2606:2800:220:1::1', family: 6 },
          { address: '10.0.0.1', family: 4 },
        ],
      ],
      [
        'public A + unique-local AAAA',
        [
          { address: '93.184.216.34', family: 4 },
          { address: 'fd00::1', family: 6 },
        ],
      ],
      [
        'public A + metadata A',
        [
          { address: '93.184.216.34', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ],
      ],
      [
        'public A + mapped loopback AAAA',
        [
          { address: '93.184.216.34', family: 4 },
          { address: '::ffff:127.0.0.1', family: 6 },
        ],
      ],
      // Reachable here: the allowed address plus the canary's; the canary must see nothing.
      ['allowed A + rebound A', [PUBLIC, REBOUND], [`127.0.0.1:${site.port}`]],
      ['rebound A + allowed A', [REBOUND, PUBLIC], [`127.0.0.1:${site.port}`]],
    ];
    const rec = recordConnects();
    const failures: string[] = [];
    try {
      for (const [name, answer, allow = []] of mixed) {
        const fetcher = new SafeFetcher({
          allow,
          lookup: async () => answer,
          timeoutMs: 5000,
        });
        const code = await fetcher.fetch(`http://mixed.test:${site.port}/articles/honeybees`).then(
          () => 'fetched',
          (e: { code?: string }) => e.code,
        );
        await fetcher.close();
        if (code !== 'blocked_address') failures.push(`${name}: ${code}`);
      }
    } finally {
      rec.stop();
    }
    const hits = rebound.hits();
    report({
      check: 'ssrf: a public answer plus a blocked one',
      runs: mixed.length,
      failures: failures.length + rec.attempts.length + hits,
      figure: `${mixed.length - failures.length}/${mixed.length} refused, ${rec.attempts.length} connection attempts, ${hits} canary hits`,
    });
    expect(failures).toEqual([]);
    expect(rec.attempts).toEqual([]);
    expect(hits).toBe(0);
  });
});

describe('SSRF: the encyclopedia and model hub clients go through the guard', () => {
  it('refuses the configured encyclopedia and hub when they point at loopback', async () => {
    const hitsBefore = canary.hits();
    const wiki = await post('/playground/fetch-wikipedia', { title: 'Honey bee' });
    const created = await s.api('/api/v1/admin/models', {
      method: 'POST',
      key,
      body: { name: 'canary-model', type: 'embedding', repo: 'acme/tiny' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const install = await s.api(`/api/v1/admin/models/${created.body.id}/install`, {
      method: 'POST',
      key,
    });
    expect(install.status, JSON.stringify(install.body)).toBe(200);
    const end = await until(
      async () => {
        const p = (await s.api(`/api/v1/admin/models/${created.body.id}/progress`, { key })).body;
        return ['installed', 'error', 'not_installed'].includes(p.status) ? p : null;
      },
      { what: 'the install to end' },
    );
    const job = (await s.api(`/api/v1/sources/jobs/${install.body.job_id}`, { key })).body;
    const hits = canary.hits() - hitsBefore;
    const loopback = /Refused to fetch .*loopback address/;
    const failures =
      Number(!(wiki.status === 422 && loopback.test(wiki.body.detail))) +
      Number(!(end.status === 'error' && loopback.test(end.message))) +
      Number(job.status !== 'failed') +
      hits;
    report({
      check: 'ssrf: encyclopedia and hub configured at the canary',
      runs: 2,
      failures,
      figure: `${hits} canary hits; wiki ${wiki.status}, install ${end.status}`,
    });
    expect(wiki.status).toBe(422);
    expect(wiki.body.detail).toMatch(loopback);
    expect(end.status).toBe('error');
    expect(end.message).toMatch(loopback);
    expect(job).toMatchObject({ status: 'failed' });
    expect(job.errors.at(-1)).toMatchObject({ type: 'hub_blocked' });
    expect(hits).toBe(0);
  });

  it('has no outbound network call in src/ outside the safe fetcher', () => {
    const offenders = outboundCallsOutsideGuard();
    report({
      check: 'ssrf: outbound calls outside the guard (src/)',
      runs: offenders.scanned,
      failures: offenders.found.length,
      figure: `${offenders.found.length} outside safe-fetcher.ts / ${offenders.scanned} source files`,
    });
    expect(offenders.found).toEqual([]);
    // One guard, one configuration: every SafeFetcher the program builds takes the allow-list
    // from the configuration (the server's and an `adam worker`'s), nothing wider.
    expect(offenders.fetchers).toEqual([
      'core.ts: new SafeFetcher({ allow: config.fetchAllow })',
      'jobs/redis-worker.ts: new SafeFetcher({ allow: config.fetchAllow })',
    ]);
    // The ONNX runtime could download a model by itself, past the guard: it is told not to.
    const runtime = fs.readFileSync(path.join(SRC, 'embedding/onnx-runtime.ts'), 'utf8');
    expect(runtime).toMatch(/env\.allowRemoteModels = false/);
  });
});

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Ways to reach the network; a new one outside the allowed files is a path that skips the guard. */
const OUTBOUND: [string, RegExp][] = [
  ['fetch()', /(?<![\w.$]|async\s|function\s)fetch\s*\(|globalThis\.fetch\b/],
  ['undici', /from\s+['"]undici['"]/],
  ['http(s).request/get', /\bhttps?\.(?:request|get)\s*\(/],
  [
    'http(s) request import',
    /import\s*\{[^}]*\b(?:request|get)\b[^}]*\}\s*from\s*['"](?:node:)?https?['"]/,
  ],
  ['net/tls connect', /\b(?:net|tls)\.(?:connect|createConnection)\s*\(/],
  [
    'net/tls connect import',
    /import\s*\{[^}]*\b(?:connect|createConnection)\b[^}]*\}\s*from\s*['"](?:node:)?(?:net|tls)['"]/,
  ],
  ['dgram/http2', /from\s+['"](?:node:)?(?:dgram|http2)['"]/],
  ['client class', /new\s+(?:WebSocket|EventSource|XMLHttpRequest)\s*\(/],
  ['HTTP client library', /from\s+['"](?:axios|got|node-fetch|ws|superagent|request)['"]/],
  ['Redis client', /from\s+['"](?:ioredis|bullmq)['"]/],
  ['curl/wget', /['"](?:curl|wget)['"]/],
];

/**
 * The files allowed each kind, with why. Redis is reached at REDIS_URL, which only the operator
 * sets; no user-given URL flows there.
 */
const ALLOWED: Record<string, string[]> = {
  'scraping/safe-fetcher.ts': ['undici'],
  'lib/redis-ping.ts': ['net/tls connect'],
  'jobs/redis-queue.ts': ['Redis client'],
  'jobs/redis-worker.ts': ['Redis client'],
  'services/database-metrics.service.ts': ['Redis client'],
};

function outboundCallsOutsideGuard() {
  const found: string[] = [];
  const fetchers: string[] = [];
  let scanned = 0;
  for (const rel of fs.readdirSync(SRC, { recursive: true }).map(String)) {
    if (!rel.endsWith('.ts') || rel.endsWith('.test.ts') || rel.includes('__fixtures__')) continue;
    scanned++;
    const text = fs
      .readFileSync(path.join(SRC, rel), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|\s)\/\/.*$/gm, '$1');
    const file = rel.split(path.sep).join('/');
    for (const m of text.matchAll(/new SafeFetcher\([^)]*\)/g)) fetchers.push(`${file}: ${m[0]}`);
    for (const [kind, re] of OUTBOUND) {
      if (re.test(text) && !(ALLOWED[file] ?? []).includes(kind)) found.push(`${file}: ${kind}`);
    }
  }
  return { found, scanned, fetchers: fetchers.sort() };
}
