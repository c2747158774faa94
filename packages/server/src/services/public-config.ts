import { DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD, type PublicConfig } from '@adam/contracts';
import type { AuthService } from './auth.service.js';
import type { SettingsService } from './settings.service.js';

/**
 * What the console reads before login: the segmenter limits its forms show, and the default
 * credentials hint while admin@example.com / admin still opens the console.
 */
export async function publicConfig(deps: {
  settings: SettingsService;
  auth: AuthService;
  version: string;
}): Promise<PublicConfig> {
  const p = deps.settings.get('processing');
  const inUse = await deps.auth.usesDefaultCredentials();
  return {
    segment_max_tokens: p.segment_max_tokens,
    segment_max_sentences: p.segment_max_sentences,
    segmenter_model: p.segmenter_model,
    default_credentials_in_use: inUse,
    default_credentials: inUse
      ? { email: DEFAULT_ADMIN_EMAIL, password: DEFAULT_ADMIN_PASSWORD }
      : null,
    version: deps.version,
  };
}
