/** Fetchers, query keys and hooks of the auth calls (spec 000 §7). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ChangePasswordRequest,
  LoginRequest,
  LoginResponse,
  TwoFactorSetupResponse,
  TwoFactorStatus,
  User,
  WsTicketResponse,
} from '@adam/contracts';
import { api } from '../api/client';
import { sessionEnding } from '../lib/realtime/sessionEnding';

export const authKeys = {
  me: ['auth', 'me'] as const,
};

/** The login screen shows its own toasts for every outcome, and a 401 here is the answer. */
export function login(body: LoginRequest): Promise<LoginResponse> {
  return api.post<LoginResponse>('/auth/login', body, { silent: true, refreshOn401: false });
}

export function logout(): Promise<null> {
  // The realtime channel closes first: the server's close of the revoked key's socket would
  // otherwise read as an authentication failure ("WebSocket authentication failed" toast).
  sessionEnding();
  return api.post<null>('/auth/logout', undefined, { silent: true, refreshOn401: false });
}

export function fetchMe(options: { signal?: AbortSignal; silent?: boolean } = {}): Promise<User> {
  return api.get<User>('/auth/me', options);
}

export function changePassword(body: ChangePasswordRequest): Promise<null> {
  // 401 means a wrong current password, not an expired session.
  return api.post<null>('/auth/password', body, { refreshOn401: false });
}

export function setupTwoFactor(): Promise<TwoFactorSetupResponse> {
  return api.post<TwoFactorSetupResponse>('/auth/2fa/setup');
}

export function enableTwoFactor(code: string): Promise<TwoFactorStatus> {
  return api.post<TwoFactorStatus>('/auth/2fa/enable', { code }, { refreshOn401: false });
}

export function disableTwoFactor(code: string): Promise<TwoFactorStatus> {
  return api.post<TwoFactorStatus>('/auth/2fa/disable', { code }, { refreshOn401: false });
}

/**
 * A single-use ticket for the realtime socket, asked for before each (re)connect. Silent: the
 * realtime client reports its own failures; a 401 is refreshed and retried like any call.
 */
export function fetchWsTicket(): Promise<string> {
  return api
    .post<WsTicketResponse>('/auth/ws-ticket', undefined, { silent: true })
    .then((answer) => answer.ticket);
}

export function useCurrentUser() {
  return useQuery({ queryKey: authKeys.me, queryFn: ({ signal }) => fetchMe({ signal }) });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword });
}

export function useSetupTwoFactor() {
  return useMutation({ mutationFn: setupTwoFactor });
}

/** Enabling or disabling 2FA updates the cached current user, so every reader sees the new status. */
function useTwoFactorMutation(call: (code: string) => Promise<TwoFactorStatus>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (status) => {
      queryClient.setQueryData<User>(authKeys.me, (user) =>
        user ? { ...user, totp_enabled: status.totp_enabled } : user,
      );
      void queryClient.invalidateQueries({ queryKey: authKeys.me });
    },
  });
}

export const useEnableTwoFactor = () => useTwoFactorMutation(enableTwoFactor);
export const useDisableTwoFactor = () => useTwoFactorMutation(disableTwoFactor);
