import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, noContent } from '../test/fetchMock';
import {
  API_KEY_STORAGE_KEY,
  LOGGED_IN_STORAGE_KEY,
  clearSession,
  getApiKey,
  saveSession,
} from '../session/storage';
import { ApiError, NETWORK_ERROR_MESSAGE, api, apiRequest, setApiHandlers } from './client';

const user = { email: 'admin@example.com', name: 'Admin', totp_enabled: false };

/** The ApiError a call fails with (fails the test if it resolves). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('api client', () => {
  const onUnauthorized = vi.fn();
  const onRequestError = vi.fn();
  let removeHandlers: () => void;

  beforeEach(() => {
    onUnauthorized.mockReset();
    onRequestError.mockReset();
    removeHandlers = setApiHandlers({ onUnauthorized, onRequestError });
    saveSession('key-1');
  });

  afterEach(() => removeHandlers());

  it('sends the stored key as X-API-Key with cookies, under /api/v1', async () => {
    const { calls } = mockFetch({ 'GET /auth/me': json(user) });
    await expect(api.get('/auth/me')).resolves.toEqual(user);
    expect(calls[0]?.headers['x-api-key']).toBe('key-1');
    expect(calls[0]?.credentials).toBe('include');
    const [url] = vi.mocked(fetch).mock.calls[0] ?? [];
    expect(String(url)).toBe('/api/v1/auth/me');
  });

  it('sends JSON bodies and drops empty query values', async () => {
    const { calls, fetchMock } = mockFetch({ 'PUT /admin/settings/resources': json({}) });
    await api.put(
      '/admin/settings/resources',
      { settings: { metrics_refresh_ms: 2000 } },
      {
        query: { a: 1, b: '', c: undefined, d: null },
      },
    );
    expect(calls[0]?.body).toEqual({ settings: { metrics_refresh_ms: 2000 } });
    expect(calls[0]?.headers['content-type']).toBe('application/json');
    expect(String(fetchMock.mock.calls[0]?.[0])).toBe('/api/v1/admin/settings/resources?a=1');
  });

  it("sends the console's header on every call, with a key or with the cookie alone", async () => {
    const { calls } = mockFetch({
      'POST /auth/refresh': json({ api_key: 'key-2', user, expires_at: '2030-01-01T00:00:00Z' }),
      'GET /auth/me': json(user),
    });
    await api.get('/auth/me');
    clearSession();
    await api.post('/auth/refresh');
    expect(calls.map((c) => c.headers['x-requested-with'])).toEqual([
      'adam-console',
      'adam-console',
    ]);
    expect(calls[1]?.headers['x-api-key']).toBeUndefined();
  });

  it('takes the error text from the body detail and returns details and status', async () => {
    const body = {
      detail: 'segment_min_length must not exceed segment_max_length',
      errors: [{ field: 'segment_min_length', message: 'must not exceed segment_max_length' }],
    };
    mockFetch({
      'PUT /admin/settings/processing': json(body, 422, { statusText: 'Unprocessable' }),
    });
    const error = await failure(api.put('/admin/settings/processing', { settings: {} }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe(body.detail);
    expect(error.status).toBe(422);
    expect(error.details).toEqual(body);
    expect(error.fieldError('segment_min_length')).toBe('must not exceed segment_max_length');
    expect(onRequestError).toHaveBeenCalledWith(error);
  });

  it('falls back to the status text when the body has no detail', async () => {
    mockFetch({
      'GET /health': new Response('<html>oops</html>', {
        status: 502,
        statusText: 'Bad Gateway',
        headers: { 'content-type': 'text/html' },
      }),
    });
    const error = await failure(api.get('/health'));
    expect(error.message).toBe('Bad Gateway');
    expect(error.status).toBe(502);
    expect(error.details).toBeNull();
  });

  it('gives status 0 on a network failure and calls the request-error handler', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    const error = await failure(api.get('/health'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(0);
    expect(error.message).toBe(NETWORK_ERROR_MESSAGE);
    expect(onRequestError).toHaveBeenCalledTimes(1);
    expect(onRequestError).toHaveBeenCalledWith(error);
  });

  it('does not call the request-error handler for silent calls', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    await expect(api.get('/health', { silent: true })).rejects.toMatchObject({ status: 0 });
    expect(onRequestError).not.toHaveBeenCalled();
  });

  it('gives empty data for a 204 and for a non-JSON answer', async () => {
    mockFetch({
      'POST /auth/logout': noContent(),
      'GET /text': new Response('plain', {
        status: 200,
        headers: { 'content-type': 'text/plain' },
      }),
    });
    await expect(api.post('/auth/logout')).resolves.toBeNull();
    await expect(api.get('/text')).resolves.toBeNull();
  });

  it('on a 401 refreshes once and retries the call with the new key', async () => {
    const { calls, callsTo } = mockFetch({
      'GET /auth/me': (call) =>
        call.headers['x-api-key'] === 'key-2' ? json(user) : json({ detail: 'Expired' }, 401),
      'POST /auth/refresh': json({ api_key: 'key-2', user, expires_at: '2030-01-01T00:00:00Z' }),
    });
    await expect(api.get('/auth/me')).resolves.toEqual(user);
    expect(callsTo('POST', '/auth/refresh')).toHaveLength(1);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /auth/me',
      'POST /auth/refresh',
      'GET /auth/me',
    ]);
    expect(calls[1]?.headers['x-api-key']).toBe('key-1');
    expect(calls[2]?.headers['x-api-key']).toBe('key-2');
    expect(getApiKey()).toBe('key-2');
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('retries only once: a second 401 is returned as the error', async () => {
    const { callsTo } = mockFetch({
      'GET /auth/me': json({ detail: 'Nope' }, 401),
      'POST /auth/refresh': json({ api_key: 'key-2', user, expires_at: 'x' }),
    });
    await expect(api.get('/auth/me')).rejects.toMatchObject({ status: 401, message: 'Nope' });
    expect(callsTo('GET', '/auth/me')).toHaveLength(2);
    expect(callsTo('POST', '/auth/refresh')).toHaveLength(1);
  });

  it('when the refresh fails: clears key and flag and calls the unauthorized handler', async () => {
    const { callsTo } = mockFetch({
      'GET /admin/settings': json({ detail: 'Invalid API key' }, 401),
      'POST /auth/refresh': json({ detail: 'Session expired' }, 401),
    });
    const error = await failure(api.get('/admin/settings'));
    expect(error).toMatchObject({ status: 401 });
    expect(callsTo('GET', '/admin/settings')).toHaveLength(1);
    expect(window.sessionStorage.getItem(API_KEY_STORAGE_KEY)).toBeNull();
    expect(window.sessionStorage.getItem(LOGGED_IN_STORAGE_KEY)).toBeNull();
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    // The session-expired message replaces the generic error toast.
    expect(onRequestError).not.toHaveBeenCalled();
  });

  it('concurrent 401s share one refresh and all retry', async () => {
    let releaseRefresh: () => void = () => {};
    const refreshGate = new Promise<void>((resolve) => (releaseRefresh = resolve));
    const { callsTo } = mockFetch({
      'GET /a': (c) => (c.headers['x-api-key'] === 'key-2' ? json({ n: 'a' }) : json({}, 401)),
      'GET /b': (c) => (c.headers['x-api-key'] === 'key-2' ? json({ n: 'b' }) : json({}, 401)),
      'GET /c': (c) => (c.headers['x-api-key'] === 'key-2' ? json({ n: 'c' }) : json({}, 401)),
      'POST /auth/refresh': async () => {
        await refreshGate;
        return json({ api_key: 'key-2', user, expires_at: 'x' });
      },
    });
    const all = Promise.all([api.get('/a'), api.get('/b'), api.get('/c')]);
    await vi.waitFor(() => expect(callsTo('POST', '/auth/refresh')).toHaveLength(1));
    releaseRefresh();
    await expect(all).resolves.toEqual([{ n: 'a' }, { n: 'b' }, { n: 'c' }]);
    expect(callsTo('POST', '/auth/refresh')).toHaveLength(1);
  });

  it('concurrent 401s with a failing refresh log out once', async () => {
    const { callsTo } = mockFetch({
      'GET /a': json({}, 401),
      'GET /b': json({}, 401),
      'POST /auth/refresh': json({ detail: 'no' }, 401),
    });
    const results = await Promise.allSettled([api.get('/a'), api.get('/b')]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(callsTo('POST', '/auth/refresh')).toHaveLength(1);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('does not refresh for calls whose 401 is the answer (login, wrong password)', async () => {
    const { callsTo } = mockFetch({
      'POST /auth/login': json({ detail: 'Invalid email or password' }, 401),
      'POST /auth/password': json({ detail: 'Current password is incorrect' }, 401),
    });
    await expect(
      apiRequest('/auth/login', { method: 'POST', body: {}, refreshOn401: false, silent: true }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      apiRequest('/auth/password', { method: 'POST', body: {}, refreshOn401: false }),
    ).rejects.toMatchObject({ status: 401, message: 'Current password is incorrect' });
    expect(callsTo('POST', '/auth/refresh')).toHaveLength(0);
    expect(onUnauthorized).not.toHaveBeenCalled();
    expect(getApiKey()).toBe('key-1');
  });

  it('download: resolves with the file and its server-given name; a failure reads the detail', async () => {
    const { calls } = mockFetch({
      'POST /export': () =>
        new Response('a,b\r\n', {
          headers: {
            'content-type': 'text/csv',
            'content-disposition': 'attachment; filename="rows-1.csv"',
          },
        }),
      'POST /broken': json({ detail: 'ids: must not be empty' }, 422),
    });
    const file = await api.download('/export', { ids: [1] });
    expect(file.filename).toBe('rows-1.csv');
    expect(await file.blob.text()).toBe('a,b\r\n');
    expect(calls[0]?.body).toEqual({ ids: [1] });
    expect(calls[0]?.headers['x-api-key']).toBe('key-1');
    await expect(api.download('/broken')).rejects.toMatchObject({
      status: 422,
      message: 'ids: must not be empty',
    });
    expect(onRequestError).toHaveBeenCalledTimes(1);
  });

  it('download: on a 401 refreshes once and retries with the new key', async () => {
    let first = true;
    const { calls } = mockFetch({
      'POST /export': () => {
        if (first) {
          first = false;
          return json({ detail: 'expired' }, 401);
        }
        return new Response('x', { headers: { 'content-type': 'text/plain' } });
      },
      'POST /auth/refresh': json({ api_key: 'key-2', user }),
    });
    const file = await api.download('/export', {});
    expect(await file.blob.text()).toBe('x');
    expect(file.filename).toBeNull();
    expect(calls.map((c) => c.path)).toEqual(['/export', '/auth/refresh', '/export']);
    expect(calls[2]?.headers['x-api-key']).toBe('key-2');
  });
});
