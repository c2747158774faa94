/**
 * The one HTTP client of the console (spec 000 §4, §7, §8). Every call goes through `apiRequest`:
 * it sends the session key as X-API-Key with cookies, turns failures into `ApiError`, and on a
 * 401 refreshes the session once and retries the call once.
 */
import { CONSOLE_HEADER, CONSOLE_HEADER_VALUE, type RefreshResponse } from '@adam/contracts';
import { clearSession, getApiKey, setApiKey } from '../session/storage';

const API_BASE = '/api/v1';
export const NETWORK_ERROR_MESSAGE = 'Network error. Please check your connection.';

export interface FieldError {
  field: string;
  message: string;
}

/** A failed call: the message (body `detail`, else status text), the status (0: network) and the body. */
export class ApiError extends Error {
  readonly status: number;
  readonly details: unknown;
  readonly fieldErrors: FieldError[];

  constructor(message: string, status: number, details: unknown = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.details = details;
    this.fieldErrors = readFieldErrors(details);
  }

  /** The message for one field (`errors[].field`, matched on its last path segment). */
  fieldError(field: string): string | undefined {
    return this.fieldErrors.find((e) => lastSegment(e.field) === field)?.message;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: HttpMethod;
  body?: unknown;
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
  /**
   * False for calls whose 401 is their answer (wrong password, wrong 2FA code) rather than an
   * expired session: those are not refreshed and retried.
   */
  refreshOn401?: boolean;
  /** True when the caller shows its own messages: the request-error handler is not called. */
  silent?: boolean;
}

export interface ApiHandlers {
  /** The session is over (a 401 that a refresh could not cure); the key is already cleared. */
  onUnauthorized?: () => void;
  /** Any other failed call, including network failures (status 0). */
  onRequestError?: (error: ApiError) => void;
  /** A refresh succeeded and rotated the key. */
  onSessionRefreshed?: (session: RefreshResponse) => void;
}

let handlers: ApiHandlers = {};

/** Installs global handlers; returns a function that removes exactly those. */
export function setApiHandlers(next: ApiHandlers): () => void {
  handlers = { ...handlers, ...next };
  return () => {
    for (const key of Object.keys(next) as (keyof ApiHandlers)[]) {
      if (handlers[key] === next[key]) delete handlers[key];
    }
  };
}

function lastSegment(field: string): string {
  const parts = field.split(/[.[\]/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? field;
}

function readFieldErrors(details: unknown): FieldError[] {
  if (!details || typeof details !== 'object' || !('errors' in details)) return [];
  const { errors } = details as { errors: unknown };
  if (!Array.isArray(errors)) return [];
  return errors.filter(
    (e): e is FieldError =>
      !!e && typeof e === 'object' && typeof e.field === 'string' && typeof e.message === 'string',
  );
}

export function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const qs = search.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

function headersFor(body: unknown): Record<string, string> {
  // The header tells the server the call comes from the console's own code (see the server's
  // http/cross-site.ts): a change made with the login cookie alone is refused without it.
  const headers: Record<string, string> = {
    Accept: 'application/json',
    [CONSOLE_HEADER]: CONSOLE_HEADER_VALUE,
  };
  const key = getApiKey();
  if (key) headers['X-API-Key'] = key;
  // No content type without a body: Fastify rejects an empty body declared as JSON. A form's
  // type carries its boundary, which only the browser knows: it sets it. A file says its own.
  if (body instanceof Blob) {
    if (body.type) headers['Content-Type'] = body.type;
  } else if (body !== undefined && !(body instanceof FormData)) {
    headers['Content-Type'] = 'application/json';
  }
  return headers;
}

/** Forms (uploads) and files (imports) are sent as they are; anything else as JSON. */
function encodeBody(body: unknown): BodyInit | undefined {
  if (body === undefined) return undefined;
  if (body instanceof FormData || body instanceof Blob) return body;
  return JSON.stringify(body);
}

/** The response body as JSON; a 204 or a non-JSON answer gives empty data (null). */
async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return null;
  try {
    return await response.json();
  } catch {
    return null;
  }
}

function errorFrom(response: Response, body: unknown): ApiError {
  const detail =
    body && typeof body === 'object' && 'detail' in body
      ? (body as { detail: unknown }).detail
      : null;
  const message =
    typeof detail === 'string' && detail
      ? detail
      : response.statusText || `Request failed with status ${response.status}`;
  return new ApiError(message, response.status, body);
}

let refreshInFlight: Promise<boolean> | null = null;

/**
 * One POST /auth/refresh shared by every call that got a 401 meanwhile. When it fails the session
 * is cleared and the unauthorized handler is called, once.
 */
function refreshSession(): Promise<boolean> {
  refreshInFlight ??= (async () => {
    let ok = false;
    try {
      const response = await fetch(buildUrl('/auth/refresh'), {
        method: 'POST',
        headers: headersFor(undefined),
        credentials: 'include',
      });
      const body = (await readBody(response)) as RefreshResponse | null;
      if (response.ok && body?.api_key) {
        setApiKey(body.api_key);
        handlers.onSessionRefreshed?.(body);
        ok = true;
      }
    } catch {
      ok = false;
    }
    if (!ok) {
      clearSession();
      handlers.onUnauthorized?.();
    }
    return ok;
  })().finally(() => {
    refreshInFlight = null;
  });
  return refreshInFlight;
}

/** What a successful answer becomes: JSON by default, a file for downloads. */
type BodyReader = (response: Response) => Promise<unknown>;

async function send<T>(
  path: string,
  options: RequestOptions,
  mayRetry: boolean,
  read: BodyReader = readBody,
): Promise<T> {
  const { method = 'GET', body, query, signal, refreshOn401 = true, silent = false } = options;
  const keyUsed = getApiKey();
  let response: Response;
  try {
    response = await fetch(buildUrl(path, query), {
      method,
      headers: headersFor(body),
      body: encodeBody(body),
      credentials: 'include',
      signal,
    });
  } catch (cause) {
    // A cancelled call (TanStack Query aborts stale ones) is not a network failure.
    if (signal?.aborted) throw cause;
    const error = new ApiError(NETWORK_ERROR_MESSAGE, 0, null);
    if (!silent) handlers.onRequestError?.(error);
    throw error;
  }

  if (response.status === 401 && refreshOn401 && mayRetry) {
    const currentKey = getApiKey();
    // Another call may have refreshed while this one was in flight: then just retry with the new key.
    const refreshed = currentKey !== null && currentKey !== keyUsed ? true : await refreshSession();
    if (refreshed) return send<T>(path, options, false, read);
    // The unauthorized handler has ended the session and said so; no second toast.
    throw errorFrom(response, await readBody(response));
  }

  if (!response.ok) {
    const error = errorFrom(response, await readBody(response));
    if (!silent) handlers.onRequestError?.(error);
    throw error;
  }
  return (await read(response)) as T;
}

/** Calls `/api/v1{path}` and resolves with the JSON body (null for 204 or non-JSON answers). */
export function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return send<T>(path, options, true);
}

/** A file answer (exports): its body and the name the server gave it, if any. */
export interface DownloadedFile {
  blob: Blob;
  filename: string | null;
}

async function readFile(response: Response): Promise<DownloadedFile> {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  return {
    blob: await response.blob(),
    filename: match?.[1] ? decodeURIComponent(match[1]) : null,
  };
}

/**
 * Calls `/api/v1{path}` and resolves with the answer as a file. Same key, 401 refresh-and-retry
 * and error rules as `apiRequest` (a failure's body is still read as JSON for its detail).
 */
export function apiDownload(path: string, options: RequestOptions = {}): Promise<DownloadedFile> {
  return send<DownloadedFile>(path, options, true, readFile);
}

type Options = Omit<RequestOptions, 'method' | 'body'>;

export const api = {
  get: <T>(path: string, options?: Options) => apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Options) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Options) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown, options?: Options) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T>(path: string, body?: unknown, options?: Options) =>
    apiRequest<T>(path, { ...options, method: 'DELETE', body }),
  /** A POST whose answer is a file (e.g. POST /snippets/export). */
  download: (path: string, body?: unknown, options?: Options) =>
    apiDownload(path, { ...options, method: 'POST', body }),
};
