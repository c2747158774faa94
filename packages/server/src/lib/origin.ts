/** `https://Console.Example.com:443/` → `https://console.example.com`; null when not an origin. */
export function normaliseOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** The configured origins, normalised (config.ts has refused any that is not one). */
export function originSet(origins: readonly string[]): Set<string> {
  return new Set(origins.map(normaliseOrigin).filter((o): o is string => o !== null));
}

/**
 * A request's Origin may act here when it is absent (not a browser's cross-origin call: curl,
 * API clients, same-origin navigation), the server's own origin as the browser reached it (its
 * Host, also through the dev proxy, which keeps the Host), or one of the configured origins.
 * `Origin: null` (sandboxed frames, file://) never is.
 */
export function originAllowed(
  headers: { origin?: string; host?: string },
  allowed: ReadonlySet<string>,
): boolean {
  const origin = headers.origin;
  if (origin === undefined) return true;
  const normalised = normaliseOrigin(origin);
  if (normalised === null) return false;
  if (allowed.has(normalised)) return true;
  return new URL(normalised).host === headers.host?.toLowerCase();
}

/** The 403 answer to a change or a socket from an origin that may not act here. */
export function foreignOriginDetail(origin: string | undefined): string {
  return `Requests from origin ${origin} are not allowed: use the console at this server's address, or add the origin to ADAM_ALLOWED_ORIGINS`;
}
