import { API_KEY_COOKIE } from '@adam/contracts';

/** The parts of an HTTP request (or a WebSocket upgrade) that can present an API key. */
export interface KeyBearer {
  headers: Record<string, string | string[] | undefined>;
  cookies?: Record<string, string | undefined>;
}

/** The key a request presents: the X-API-Key header first, then the login cookie. */
export function presentedKey(req: KeyBearer): string | undefined {
  const header = req.headers['x-api-key'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  return fromHeader?.trim() || req.cookies?.[API_KEY_COOKIE] || undefined;
}
