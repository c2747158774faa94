/** Fetchers, query keys and hooks of the settings calls: GET/PUT /admin/settings/{section}. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  DEFAULT_RESOURCES_SETTINGS,
  DEFAULT_UPLOAD_SETTINGS,
  type UploadSettings,
  type CreateScrapingRule,
  type ScrapingRule,
  type SectionSettings,
  type SettingsChange,
  type SettingsSection,
  type UpdateScrapingRule,
} from '@adam/contracts';
import { api } from '../../api/client';

export const settingsKeys = {
  all: ['settings'] as const,
  section: (section: SettingsSection) => ['settings', section] as const,
};

export function fetchSettingsSection<S extends SettingsSection>(
  section: S,
  signal?: AbortSignal,
  opts: { silent?: boolean } = {},
): Promise<SectionSettings<S>> {
  return api.get<SectionSettings<S>>(`/admin/settings/${section}`, { signal, ...opts });
}

/**
 * Saves fields of a group (those left out keep their stored value); the answer is the stored
 * group. Fields are sent under `settings`.
 */
export function saveSettingsSection<S extends SettingsSection>(
  section: S,
  settings: SettingsChange<S>,
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
    mutationFn: (settings: SettingsChange<S>) => saveSettingsSection(section, settings),
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

/**
 * The server's upload limits of the moment (settings section `uploads`), for the Upload files
 * tab's own checks. Read silently and, until read or if unreadable, the defaults: the server
 * checks every upload again. Shares the section's key, so a save or a settings.updated event
 * refreshes it.
 */
export function useUploadSettings(): UploadSettings {
  const { data } = useQuery({
    queryKey: settingsKeys.section('uploads'),
    queryFn: ({ signal }) => fetchSettingsSection('uploads', signal, { silent: true }),
  });
  return data ?? DEFAULT_UPLOAD_SETTINGS;
}

// Scraping rules (spec 002 §2, §3, §7): GET/POST /rules/scraping, PATCH/DELETE /rules/scraping/{id}.
// Every call is silent: the rules screen shows the spec's own failure toasts with the detail.

export const ruleKeys = {
  all: ['rules'] as const,
  scraping: ['rules', 'scraping'] as const,
};

export function fetchScrapingRules(signal?: AbortSignal): Promise<ScrapingRule[]> {
  return api.get<ScrapingRule[]>('/rules/scraping', { signal, silent: true });
}

export function createScrapingRule(rule: CreateScrapingRule): Promise<ScrapingRule> {
  return api.post<ScrapingRule>('/rules/scraping', rule, { silent: true });
}

export function updateScrapingRule(id: number, change: UpdateScrapingRule): Promise<ScrapingRule> {
  return api.patch<ScrapingRule>(`/rules/scraping/${id}`, change, { silent: true });
}

export function deleteScrapingRule(id: number): Promise<{ id: number; deleted: true }> {
  return api.delete<{ id: number; deleted: true }>(`/rules/scraping/${id}`, undefined, {
    silent: true,
  });
}

export function useScrapingRules() {
  return useQuery({
    queryKey: ruleKeys.scraping,
    queryFn: ({ signal }) => fetchScrapingRules(signal),
  });
}

const replaceRule = (rules: ScrapingRule[] | undefined, rule: ScrapingRule) =>
  rules?.map((r) => (r.id === rule.id ? rule : r));

export function useCreateScrapingRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createScrapingRule,
    onSuccess: (rule) => {
      queryClient.setQueryData<ScrapingRule[]>(ruleKeys.scraping, (rules) =>
        rules ? [...rules, rule] : rules,
      );
      void queryClient.invalidateQueries({ queryKey: ruleKeys.scraping });
    },
  });
}

/**
 * The enabled switch saves at once, so the change shows before the answer and is rolled back
 * if the server refuses it.
 */
export function useUpdateScrapingRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: number; change: UpdateScrapingRule }) =>
      updateScrapingRule(id, change),
    onMutate: async ({ id, change }) => {
      await queryClient.cancelQueries({ queryKey: ruleKeys.scraping });
      const previous = queryClient.getQueryData<ScrapingRule[]>(ruleKeys.scraping);
      if (change.enabled !== undefined) {
        queryClient.setQueryData<ScrapingRule[]>(ruleKeys.scraping, (rules) =>
          rules?.map((r) => (r.id === id ? { ...r, enabled: change.enabled as boolean } : r)),
        );
      }
      return { previous };
    },
    onError: (_error, _vars, context) => {
      if (context?.previous) queryClient.setQueryData(ruleKeys.scraping, context.previous);
    },
    onSuccess: (rule) => {
      queryClient.setQueryData<ScrapingRule[]>(ruleKeys.scraping, (rules) =>
        replaceRule(rules, rule),
      );
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ruleKeys.scraping }),
  });
}

export function useDeleteScrapingRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteScrapingRule,
    onSuccess: ({ id }) => {
      queryClient.setQueryData<ScrapingRule[]>(ruleKeys.scraping, (rules) =>
        rules?.filter((r) => r.id !== id),
      );
      void queryClient.invalidateQueries({ queryKey: ruleKeys.scraping });
    },
  });
}
