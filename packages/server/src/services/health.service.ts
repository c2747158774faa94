import type { ComponentHealth, HealthResponse } from '@adam/contracts';

export type HealthCheck = () => ComponentHealth | Promise<ComponentHealth>;

/** Each part of the system registers how to check itself; /health runs them all. */
export class HealthService {
  private readonly checks = new Map<string, HealthCheck>();
  private readonly startedAt = Date.now();

  constructor(private readonly version: string) {}

  register(component: string, check: HealthCheck): void {
    this.checks.set(component, check);
  }

  async report(): Promise<HealthResponse> {
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
    const status = statuses.includes('unhealthy')
      ? 'unhealthy'
      : statuses.includes('degraded')
        ? 'degraded'
        : 'healthy';
    return {
      status,
      version: this.version,
      uptime_s: Math.round((Date.now() - this.startedAt) / 1000),
      components,
    };
  }
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
