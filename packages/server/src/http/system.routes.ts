import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HealthResponse, PublicConfig, RealtimeMetrics } from '@adam/contracts';
import type { AuthService } from '../services/auth.service.js';
import { presentedKey, type KeyBearer } from '../lib/presented-key.js';
import type { HealthService } from '../services/health.service.js';
import type { MetricsService } from '../services/metrics.service.js';
import { publicConfig } from '../services/public-config.js';
import type { SettingsService } from '../services/settings.service.js';

export function systemRoutes(deps: {
  health: HealthService;
  settings: SettingsService;
  auth: AuthService;
  metrics: MetricsService;
  version: string;
}) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/health',
      { config: { public: true }, schema: { tags: ['system'], response: { 200: HealthResponse } } },
      // Public for probes; where the data lives on disk is told only to a caller with a key.
      async (req) => deps.health.report({ withPaths: presentsValidKey(deps.auth, req) }),
    );

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
