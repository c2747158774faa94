import type { ComponentHealth, HealthResponse } from '@adam/contracts';

export type HealthProbe = () => ComponentHealth | Promise<ComponentHealth>;

/** Each part of the system registers how to check itself; /health runs them all. */
export class HealthService {
  private readonly checks = new Map<string, HealthProbe>();
  private readonly startedAt = Date.now();

  constructor(private readonly version: string) {}

  register(component: string, check: HealthProbe): void {
    this.checks.set(component, check);
  }

  /**
   * `withPaths: false` (an unauthenticated caller) leaves out where things are on disk: the
   * `path` details and any absolute path inside a detail or an error message.
   */
  async report({ withPaths = true }: { withPaths?: boolean } = {}): Promise<HealthResponse> {
    const components: Record<string, ComponentHealth> = {};
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          components[name] = await withTimeout(Promise.resolve(check()), 2000);
        } catch (e) {
          components[name] = { status: 'unhealthy', error: (e as Error).message };
        }
      }),
    );
    const statuses = Object.values(components).map((c) => c.status);
    // Degraded outranks starting: it asks for the operator's attention, starting passes by itself.
    const status = statuses.includes('unhealthy')
      ? 'unhealthy'
      : statuses.includes('degraded')
        ? 'degraded'
        : statuses.includes('starting')
          ? 'starting'
          : 'healthy';
    if (!withPaths) {
      for (const [name, c] of Object.entries(components)) components[name] = withoutPaths(c);
    }
    return {
      status,
      version: this.version,
      uptime_s: Math.round((Date.now() - this.startedAt) / 1000),
      components,
    };
  }
}

// An absolute POSIX path (a slash not preceded by a word character, a colon or a slash, so URLs
// and ratios are left alone) or a Windows one (C:\ or \\server).
const ABSOLUTE_PATH =
  /(?<![\w:/.])\/[^\s'"`,;()<>]+|\b[A-Za-z]:\\[^\s'"`,;()<>]*|\\\\[^\s'"`,;()<>]+/g;
const PATH_KEYS = new Set(['path', 'dir', 'file']);

function redactPaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, '[path]');
}

function withoutPaths(c: ComponentHealth): ComponentHealth {
  const strip = (v: unknown): unknown => {
    if (typeof v === 'string') return redactPaths(v);
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !PATH_KEYS.has(k))
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  return {
    status: c.status,
    ...(c.details ? { details: strip(c.details) as Record<string, unknown> } : {}),
    ...(c.error !== undefined ? { error: redactPaths(c.error) } : {}),
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`check timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}
