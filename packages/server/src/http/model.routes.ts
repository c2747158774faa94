import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ClearCacheResult,
  DeleteModelFilesBody,
  DeleteModelFilesResult,
  ErrorBody,
  IdParams,
  InstallProgress,
  LanguagePackList,
  LanguagePackParams,
  Model,
  ModelActionResult,
  ModelCreate,
  ModelList,
  ModelUpdate,
  TestModelBody,
  TestModelResult,
  ToggleModelBody,
  ToggleModelResult,
  UnusedModelFiles,
} from '@adam/contracts';
import type { ModelServices } from '../services/model-services.js';

const tags = ['models'];

/**
 * The model registry's calls. The static paths (language-packs, cleanup, cache) never reach
 * `/admin/models/:id`: the router prefers a static segment, and ids are integers anyway.
 */
export function modelRoutes({ registry, installs, files }: ModelServices) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/models',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: ModelList } } },
      async () => registry.list(),
    );

    app.post(
      '/admin/models',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          body: ModelCreate,
          response: { 201: Model, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (req, reply) => reply.status(201).send(registry.create(req.body)),
    );

    app.get(
      '/admin/models/language-packs',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: LanguagePackList } } },
      async () => registry.languagePacks(),
    );

    app.post(
      '/admin/models/language-packs/:code/install',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: LanguagePackParams,
          response: { 200: ModelActionResult, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => installs.installPack(req.params.code),
    );

    app.post(
      '/admin/models/language-packs/:code/uninstall',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: LanguagePackParams,
          response: { 200: ModelActionResult, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req) => installs.uninstallPack(req.params.code),
    );

    app.get(
      '/admin/models/cleanup/files',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: UnusedModelFiles } } },
      async () => files.unusedFiles(),
    );

    app.delete(
      '/admin/models/cleanup/files',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          body: DeleteModelFilesBody,
          response: { 200: DeleteModelFilesResult, 422: ErrorBody },
        },
      },
      async (req) => files.deleteFiles(req.body.files),
    );

    app.post(
      '/admin/models/cache/clear',
      { config: { role: 'operator' }, schema: { tags, response: { 200: ClearCacheResult } } },
      async () => files.clearCache(),
    );

    app.get(
      '/admin/models/:id',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: Model, 404: ErrorBody } },
      },
      async (req) => registry.get(req.params.id),
    );

    app.put(
      '/admin/models/:id',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          body: ModelUpdate,
          response: { 200: Model, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => registry.update(req.params.id, req.body),
    );

    app.post(
      '/admin/models/:id/install',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          response: { 200: ModelActionResult, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => installs.install(req.params.id),
    );

    app.post(
      '/admin/models/:id/uninstall',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          response: { 200: ModelActionResult, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req) => installs.uninstall(req.params.id),
    );

    app.get(
      '/admin/models/:id/progress',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: InstallProgress, 404: ErrorBody } },
      },
      async (req) => installs.progress(req.params.id),
    );

    app.post(
      '/admin/models/:id/toggle',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          body: ToggleModelBody,
          response: { 200: ToggleModelResult, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => registry.toggle(req.params.id, req.body.active),
    );

    app.post(
      '/admin/models/:id/test',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          body: TestModelBody,
          response: { 200: TestModelResult, 400: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => registry.test(req.params.id, req.body.text),
    );
  };
}
