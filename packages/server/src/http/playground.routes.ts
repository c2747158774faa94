import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AnalyzeRequest,
  AnalyzeResponse,
  ErrorBody,
  FetchUrlRequest,
  FetchUrlResponse,
  FetchWikipediaRequest,
  FetchWikipediaResponse,
  PlaygroundLanguages,
  SaveSegmentsRequest,
  SaveSegmentsResponse,
} from '@adam/contracts';
import type { PlaygroundService } from '../services/playground.service.js';

const tags = ['playground'];
const e = { 400: ErrorBody, 404: ErrorBody, 413: ErrorBody, 422: ErrorBody, 502: ErrorBody };

export function playgroundRoutes(playground: PlaygroundService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/playground/languages',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: PlaygroundLanguages } } },
      async () => playground.languages(),
    );
    app.post(
      '/playground/analyze',
      {
        config: { role: 'viewer' },
        schema: { tags, body: AnalyzeRequest, response: { 200: AnalyzeResponse, ...e } },
      },
      async (req) => playground.analyze(req.body),
    );
    app.post(
      '/playground/fetch-url',
      {
        config: { role: 'operator' },
        schema: { tags, body: FetchUrlRequest, response: { 200: FetchUrlResponse, ...e } },
      },
      async (req) => playground.fetchUrl(req.body.url, req.body.rule_id),
    );
    app.post(
      '/playground/save-segments',
      // The 100 kB article limit is checked by the service with its own message; the body limit only stops abuse.
      {
        config: { role: 'operator' },
        bodyLimit: 1024 * 1024,
        schema: {
          tags,
          body: SaveSegmentsRequest,
          response: { 200: SaveSegmentsResponse, 429: ErrorBody, ...e },
        },
      },
      async (req) => playground.saveSegments(req.body),
    );
    app.post(
      '/playground/fetch-wikipedia',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          body: FetchWikipediaRequest,
          response: { 200: FetchWikipediaResponse, ...e },
        },
      },
      async (req) => playground.fetchWikipedia(req.body.title, req.body.language),
    );
  };
}
