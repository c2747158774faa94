/** The public configuration (GET /config/public): read before login and by screens showing limits. */
import { useQuery } from '@tanstack/react-query';
import type { PublicConfig } from '@adam/contracts';
import { api } from '../api/client';

export const configKeys = {
  public: ['config', 'public'] as const,
};

export function fetchPublicConfig(signal?: AbortSignal): Promise<PublicConfig> {
  // Read before login: its failure must not toast over the login screen.
  return api.get<PublicConfig>('/config/public', { signal, silent: true, refreshOn401: false });
}

export function usePublicConfig() {
  return useQuery({
    queryKey: configKeys.public,
    queryFn: ({ signal }) => fetchPublicConfig(signal),
    staleTime: 60_000,
  });
}
