/**
 * Fetchers, query keys and hooks of API keys and login sessions: the signed-in user's own
 * (/auth/api-keys, /auth/sessions) and an administrator's view of anyone's (/admin/users/{id}/…).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ApiKeyList,
  CreateApiKey,
  CreatedApiKey,
  RevokedCount,
  SessionList,
} from '@adam/contracts';
import { api } from '../../api/client';

export const accessKeys = {
  all: ['access'] as const,
  ownKeys: ['access', 'own', 'api-keys'] as const,
  ownSessions: ['access', 'own', 'sessions'] as const,
  userKeys: (userId: number) => ['access', 'user', userId, 'api-keys'] as const,
  userSessions: (userId: number) => ['access', 'user', userId, 'sessions'] as const,
};

export function fetchOwnApiKeys(signal?: AbortSignal): Promise<ApiKeyList> {
  return api.get<ApiKeyList>('/auth/api-keys', { signal });
}

export function fetchOwnSessions(signal?: AbortSignal): Promise<SessionList> {
  return api.get<SessionList>('/auth/sessions', { signal });
}

export function fetchUserApiKeys(userId: number, signal?: AbortSignal): Promise<ApiKeyList> {
  return api.get<ApiKeyList>(`/admin/users/${userId}/api-keys`, { signal });
}

export function fetchUserSessions(userId: number, signal?: AbortSignal): Promise<SessionList> {
  return api.get<SessionList>(`/admin/users/${userId}/sessions`, { signal });
}

// The screens name the key or session in their own messages: these calls are silent.
export function createApiKey(body: CreateApiKey): Promise<CreatedApiKey> {
  return api.post<CreatedApiKey>('/auth/api-keys', body, { silent: true });
}

export function revokeOwnApiKey(id: number): Promise<null> {
  return api.delete<null>(`/auth/api-keys/${id}`, undefined, { silent: true });
}

export function revokeOwnSession(id: number): Promise<null> {
  return api.delete<null>(`/auth/sessions/${id}`, undefined, { silent: true });
}

export function revokeOtherSessions(): Promise<RevokedCount> {
  return api.post<RevokedCount>('/auth/sessions/revoke-others', undefined, { silent: true });
}

export function revokeUserApiKey(userId: number, keyId: number): Promise<null> {
  return api.delete<null>(`/admin/users/${userId}/api-keys/${keyId}`, undefined, {
    silent: true,
  });
}

export function revokeUserSession(userId: number, sessionId: number): Promise<null> {
  return api.delete<null>(`/admin/users/${userId}/sessions/${sessionId}`, undefined, {
    silent: true,
  });
}

export function revokeUserSessions(userId: number): Promise<RevokedCount> {
  return api.delete<RevokedCount>(`/admin/users/${userId}/sessions`, undefined, { silent: true });
}

export function useOwnApiKeys() {
  return useQuery({
    queryKey: accessKeys.ownKeys,
    queryFn: ({ signal }) => fetchOwnApiKeys(signal),
  });
}

export function useOwnSessions() {
  return useQuery({
    queryKey: accessKeys.ownSessions,
    queryFn: ({ signal }) => fetchOwnSessions(signal),
  });
}

export function useUserApiKeys(userId: number) {
  return useQuery({
    queryKey: accessKeys.userKeys(userId),
    queryFn: ({ signal }) => fetchUserApiKeys(userId, signal),
  });
}

export function useUserSessions(userId: number) {
  return useQuery({
    queryKey: accessKeys.userSessions(userId),
    queryFn: ({ signal }) => fetchUserSessions(userId, signal),
  });
}

/**
 * Every change refetches all key and session lists: an administrator's own keys appear in both
 * their own list and the Users panel.
 */
function useAccessMutation<A, R>(call: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => queryClient.invalidateQueries({ queryKey: accessKeys.all }),
  });
}

export const useCreateApiKey = () => useAccessMutation(createApiKey);
export const useRevokeOwnApiKey = () => useAccessMutation(revokeOwnApiKey);
export const useRevokeOwnSession = () => useAccessMutation(revokeOwnSession);
export const useRevokeOtherSessions = () => useAccessMutation(() => revokeOtherSessions());
export const useRevokeUserApiKey = () =>
  useAccessMutation(({ userId, keyId }: { userId: number; keyId: number }) =>
    revokeUserApiKey(userId, keyId),
  );
export const useRevokeUserSession = () =>
  useAccessMutation(({ userId, sessionId }: { userId: number; sessionId: number }) =>
    revokeUserSession(userId, sessionId),
  );
export const useRevokeUserSessions = () => useAccessMutation(revokeUserSessions);
