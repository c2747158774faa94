import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CreateScrapingRule,
  DeletedResponse,
  ErrorBody,
  IdParams,
  ScrapingRule,
  ScrapingRuleList,
  UpdateScrapingRule,
} from '@adam/contracts';
import type { RuleService } from '../services/rule.service.js';

const tags = ['scraping rules'];
const errors = { 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };

export function ruleRoutes(rules: RuleService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/rules/scraping',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: ScrapingRuleList } } },
      async () => rules.list(),
    );

    app.post(
      '/rules/scraping',
      {
        config: { role: 'operator' },
        schema: { tags, body: CreateScrapingRule, response: { 201: ScrapingRule, ...errors } },
      },
      async (req, reply) => reply.status(201).send(rules.create(req.body)),
    );

    app.patch(
      '/rules/scraping/:id',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          body: UpdateScrapingRule,
          response: { 200: ScrapingRule, ...errors },
        },
      },
      async (req) => rules.update(req.params.id, req.body),
    );

    app.delete(
      '/rules/scraping/:id',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          response: { 200: DeletedResponse, 404: ErrorBody },
        },
      },
      async (req) => rules.delete(req.params.id),
    );
  };
}
