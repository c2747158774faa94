import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  QualityAlert,
  QualityAlertList,
  QualityAlertListQuery,
  QualityAlertParams,
} from '@adam/contracts';
import { requireAuth } from './auth-guard.js';
import type { EvaluationWatchService } from '../services/evaluation-watch.service.js';

const tags = ['evaluation'];

/** The evaluation watch's drop alerts (issue 27): anyone reads them, operators dismiss them. */
export function qualityAlertRoutes(watch: EvaluationWatchService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/evaluation/alerts',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          description: 'Open drop alerts, newest first; with all=true the dismissed ones too.',
          querystring: QualityAlertListQuery,
          response: { 200: QualityAlertList },
        },
      },
      (req) => watch.listAlerts(req.query.all),
    );
    app.post(
      '/evaluation/alerts/:id/dismiss',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: QualityAlertParams,
          response: { 200: QualityAlert, 404: ErrorBody },
        },
      },
      (req) => watch.dismissAlert(req.params.id, requireAuth(req).user.email),
    );
  };
}
