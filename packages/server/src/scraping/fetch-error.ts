import { AppError } from '../lib/errors.js';

/**
 * Why a fetch or an extraction did not give content. Jobs record the code as the error type;
 * the HTTP layer answers the status with the message as `detail`.
 */
export type FetchErrorCode =
  | 'invalid_url'
  | 'bad_scheme'
  | 'blocked_address'
  | 'denied_by_rule'
  | 'too_many_redirects'
  | 'timeout'
  | 'too_large'
  | 'http_status'
  | 'dns'
  | 'network'
  | 'bad_response'
  | 'unsupported_content'
  | 'bad_selector'
  | 'selector_no_match';

/** 400: the input is not a URL; 422: we refuse the target or cannot use it; 502: upstream failed. */
const STATUS: Record<FetchErrorCode, number> = {
  invalid_url: 400,
  bad_scheme: 422,
  blocked_address: 422,
  denied_by_rule: 422,
  too_large: 422,
  unsupported_content: 422,
  bad_selector: 422,
  selector_no_match: 422,
  too_many_redirects: 502,
  timeout: 502,
  http_status: 502,
  dns: 502,
  network: 502,
  bad_response: 502,
};

export class FetchError extends AppError {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    /** The URL the error is about (the hop that failed, for redirects). */
    readonly url?: string,
    /** The upstream HTTP status, for `http_status`. */
    readonly upstreamStatus?: number,
    /** The upstream's Retry-After header, for `http_status` (a crawler backs off by it). */
    readonly retryAfter?: string,
  ) {
    super(STATUS[code], message);
    this.name = 'FetchError';
  }
}

export function isFetchError(err: unknown, code?: FetchErrorCode): err is FetchError {
  return err instanceof FetchError && (code === undefined || err.code === code);
}

/** '5 MiB', '200 KiB', '900 bytes': limits in messages read the way operators set them. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

export function formatDuration(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
