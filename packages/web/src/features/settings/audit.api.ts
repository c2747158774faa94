/** Fetchers, query keys and hooks of the audit trail: /admin/audit (administrator only). */
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import type { AuditFilters, AuditPage, AuditVerification } from '@adam/contracts';
import { api, apiDownload, type DownloadedFile } from '../../api/client';

export type AuditExportFormat = 'csv' | 'jsonl';

export const auditKeys = {
  all: ['audit'] as const,
  page: (filters: AuditFilters, cursor: string | null) =>
    ['audit', 'page', filters, cursor] as const,
  verify: ['audit', 'verify'] as const,
};

export const AUDIT_PAGE_SIZE = 50;

export function fetchAuditPage(
  filters: AuditFilters,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<AuditPage> {
  return api.get<AuditPage>('/admin/audit', {
    query: { ...filters, cursor, limit: AUDIT_PAGE_SIZE },
    signal,
  });
}

export function fetchAuditVerification(signal?: AbortSignal): Promise<AuditVerification> {
  return api.get<AuditVerification>('/admin/audit/verify', { signal });
}

/** The whole filtered trail as a file (the server streams it). */
export function exportAudit(
  filters: AuditFilters,
  format: AuditExportFormat,
): Promise<DownloadedFile> {
  return apiDownload('/admin/audit/export', { method: 'GET', query: { ...filters, format } });
}

export function useAuditPage(filters: AuditFilters, cursor: string | null) {
  return useQuery({
    queryKey: auditKeys.page(filters, cursor),
    queryFn: ({ signal }) => fetchAuditPage(filters, cursor, signal),
    placeholderData: keepPreviousData,
  });
}

export function useAuditVerification() {
  return useQuery({
    queryKey: auditKeys.verify,
    queryFn: ({ signal }) => fetchAuditVerification(signal),
  });
}

export function useExportAudit() {
  return useMutation({
    mutationFn: ({ filters, format }: { filters: AuditFilters; format: AuditExportFormat }) =>
      exportAudit(filters, format),
  });
}
