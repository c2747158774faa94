import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HealthResponse, PublicConfig, ReadinessResponse, RealtimeMetrics } from '@adam/contracts';
import type { AuthService } from '../services/auth.service.js';
import { presentedKey, type KeyBearer } from '../lib/presented-key.js';
import type { HealthProbe, HealthService } from '../services/health.service.js';
import type { MetricsService } from '../services/metrics.service.js';
import { publicConfig } from '../services/public-config.js';
import type { SettingsService } from '../services/settings.service.js';

export interface ProbeDeps {
  health: HealthService;
  auth: AuthService;
  /** The engine's readiness (Engine.stats). */
  engine: { stats(): { ready: boolean } };
  index: { health: HealthProbe };
}

/**
 * `/health` and `/ready`, for supervisors and load balancers: registered under /api/v1 and at
 * the root, where they probe (the console's pages answer every other root path with 200).
 */
export function probeRoutes(deps: ProbeDeps) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/health',
      { config: { public: true }, schema: { tags: ['system'], response: { 200: HealthResponse } } },
      // Public for probes; where the data lives on disk is told only to a caller with a key.
      async (req) => deps.health.report({ withPaths: presentsValidKey(deps.auth, req) }),
    );

    app.get(
      '/ready',
      {
        config: { public: true },
        schema: {
          tags: ['system'],
          description:
            'Readiness: 200 once the engine and the vector index are ready, 503 naming what is not',
          response: { 200: ReadinessResponse, 503: ReadinessResponse },
        },
      },
      async (_req, reply) => {
        const r = await readiness(deps);
        return reply.status(r.ready ? 200 : 503).send(r);
      },
    );
  };
}

async function readiness(deps: ProbeDeps): Promise<ReadinessResponse> {
  const engine = deps.engine.stats().ready;
  const indexHealth = await deps.index.health();
  // 'starting' is the index loading its saved files; degraded (being repaired) still answers.
  const index = indexHealth.status !== 'starting';
  const notReady = [
    ...(engine ? [] : ['engine: starting its threads and model']),
    ...(index ? [] : ['index: loading the saved index']),
  ];
  return { ready: engine && index, engine, index, not_ready: notReady };
}

export function systemRoutes(
  deps: ProbeDeps & { settings: SettingsService; metrics: MetricsService; version: string },
) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    await app.register(probeRoutes(deps));

    app.get(
      '/config/public',
      { config: { public: true }, schema: { tags: ['system'], response: { 200: PublicConfig } } },
      async () => publicConfig(deps),
    );

    app.get(
      '/metrics/realtime',
      {
        config: { role: 'viewer' },
        schema: { tags: ['monitoring'], response: { 200: RealtimeMetrics } },
      },
      async () => deps.metrics.realtime(),
    );
  };
}

function presentsValidKey(auth: AuthService, req: KeyBearer): boolean {
  try {
    auth.authenticate(presentedKey(req));
    return true;
  } catch {
    return false;
  }
}
