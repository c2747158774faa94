import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AllSettings,
  ErrorBody,
  SettingsResponse,
  SettingsSectionParams,
  UpdateSettingsRequest,
} from '@adam/contracts';
import { Unprocessable } from '../lib/errors.js';
import type { SettingsService } from '../services/settings.service.js';

const tags = ['settings'];

export function settingsRoutes(settings: SettingsService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/settings',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: AllSettings } } },
      async () => settings.getAll(),
    );

    app.get(
      '/admin/settings/:section',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: SettingsSectionParams,
          response: { 200: SettingsResponse, 404: ErrorBody },
        },
      },
      async (req) => settings.get(settings.section(req.params.section)),
    );

    app.put(
      '/admin/settings/:section',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          params: SettingsSectionParams,
          body: UpdateSettingsRequest,
          response: { 200: SettingsResponse, 404: ErrorBody, 422: ErrorBody },
        },
        // Before the body schema: an unknown section is a 404, and the fields are checked
        // against the path's section, so a 422 names the field rather than the whole object.
        preValidation: async (req) => {
          const section = settings.section(req.params.section);
          const body: unknown = req.body;
          if (body && typeof body === 'object' && 'settings' in body) {
            settings.change(section, body.settings);
          }
        },
      },
      async (req) => {
        const section = settings.section(req.params.section);
        if (req.body.section !== undefined && req.body.section !== section) {
          throw new Unprocessable(
            `Body section "${req.body.section}" does not match path section "${section}"`,
            [{ field: 'section', message: `must be "${section}"` }],
          );
        }
        return settings.update(section, settings.change(section, req.body.settings));
      },
    );
  };
}
