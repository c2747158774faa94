import { vi } from 'vitest';

export interface RecordedCall {
  method: string;
  path: string;
  /** The query string's parameters. */
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  /** The body as sent when it is not JSON text (a FormData, a Blob). */
  rawBody: BodyInit | null | undefined;
  credentials: RequestCredentials | undefined;
}

export type Route = (call: RecordedCall) => Response | Promise<Response>;

/** A JSON answer as the server gives it. */
export function json(body: unknown, status = 200, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    statusText: init.statusText,
    headers: { 'content-type': 'application/json; charset=utf-8', ...init.headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

/**
 * Stubs global fetch with a table of `'METHOD /path'` routes (path without /api/v1 and query).
 * Unrouted calls answer 404. Every call is recorded.
 */
export function mockFetch(routes: Record<string, Route | Response>) {
  const calls: RecordedCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const query = Object.fromEntries(url.searchParams.entries());
    const call: RecordedCall = {
      method,
      path,
      query,
      headers,
      body,
      rawBody: typeof init.body === 'string' ? undefined : init.body,
      credentials: init.credentials,
    };
    calls.push(call);
    const route = routes[`${method} ${path}`];
    if (!route) return json({ detail: `No route for ${method} ${path}` }, 404);
    return route instanceof Response ? route.clone() : route(call);
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    fetchMock,
    callsTo: (method: string, path: string) =>
      calls.filter((c) => c.method === method && c.path === path),
  };
}
