/** Fetchers, query keys and hooks of the evaluation watch's drop alerts (issue 27). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QualityAlert, QualityAlertList } from '@adam/contracts';
import { api } from '../../api/client';
import { overviewKeys, OVERVIEW_POLL_MS } from './overview.api';

/** Under the overview's keys: its Refresh and every job end refetch them too. */
export const qualityAlertKeys = {
  all: [...overviewKeys.all, 'quality-alerts'] as const,
  open: [...overviewKeys.all, 'quality-alerts', 'open'] as const,
};

export function fetchOpenQualityAlerts(signal?: AbortSignal): Promise<QualityAlertList> {
  // Silent: the panel shows its own failure in place.
  return api.get<QualityAlertList>('/evaluation/alerts', { signal, silent: true });
}

export function dismissQualityAlert(id: number): Promise<QualityAlert> {
  return api.post<QualityAlert>(`/evaluation/alerts/${id}/dismiss`);
}

export function useOpenQualityAlerts() {
  return useQuery({
    queryKey: qualityAlertKeys.open,
    queryFn: ({ signal }) => fetchOpenQualityAlerts(signal),
    refetchInterval: OVERVIEW_POLL_MS,
  });
}

/** A dismissed alert leaves the open list at once; the list is read again after. */
export function useDismissQualityAlert() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: dismissQualityAlert,
    onSuccess: (alert) => {
      queryClient.setQueryData<QualityAlertList>(qualityAlertKeys.open, (list) =>
        list ? { alerts: list.alerts.filter((a) => a.id !== alert.id) } : list,
      );
      void queryClient.invalidateQueries({ queryKey: qualityAlertKeys.all });
    },
  });
}
