/** Fetchers, query keys and hooks of the settings calls: GET/PUT /admin/settings/{section}. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  DEFAULT_RESOURCES_SETTINGS,
  type AllSettings,
  type SectionSettings,
  type SettingsSection,
} from '@adam/contracts';
import { api } from '../../api/client';

export const settingsKeys = {
  all: ['settings'] as const,
  section: (section: SettingsSection) => ['settings', section] as const,
};

export function fetchAllSettings(signal?: AbortSignal): Promise<AllSettings> {
  return api.get<AllSettings>('/admin/settings', { signal });
}

export function fetchSettingsSection<S extends SettingsSection>(
  section: S,
  signal?: AbortSignal,
): Promise<SectionSettings<S>> {
  return api.get<SectionSettings<S>>(`/admin/settings/${section}`, { signal });
}

/** Saves a group; the answer is the stored group. Fields are sent under `settings`. */
export function saveSettingsSection<S extends SettingsSection>(
  section: S,
  settings: Record<string, unknown>,
): Promise<SectionSettings<S>> {
  return api.put<SectionSettings<S>>(`/admin/settings/${section}`, { settings });
}

export function useSettingsSection<S extends SettingsSection>(section: S) {
  return useQuery({
    queryKey: settingsKeys.section(section),
    queryFn: ({ signal }) => fetchSettingsSection(section, signal),
  });
}

export function useSaveSettingsSection<S extends SettingsSection>(section: S) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: Record<string, unknown>) => saveSettingsSection(section, settings),
    onSuccess: (saved) => {
      queryClient.setQueryData(settingsKeys.section(section), saved);
    },
  });
}

/** The metrics refresh interval every poll of system figures follows (default 5000 ms). */
export function useMetricsRefreshMs(): number {
  const { data } = useSettingsSection('resources');
  return data?.metrics_refresh_ms ?? DEFAULT_RESOURCES_SETTINGS.metrics_refresh_ms;
}
