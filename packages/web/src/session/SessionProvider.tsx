import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { User } from '@adam/contracts';
import { setApiHandlers } from '../api/client';
import { toast } from '../layout/toasts';
import { authKeys, fetchMe, logout as logoutCall } from './auth.api';
import { LOGIN_MESSAGES } from './messages';
import { SessionContext, type SessionContextValue, type SessionStatus } from './SessionContext';
import { clearSession, isLoggedInFlagSet, saveSession } from './storage';

interface State {
  status: SessionStatus;
  user: User | null;
}

/**
 * Owns the session state (spec 000 §4). At start-up, when the logged-in flag is set, the stored
 * key is used to fetch the current user; if that fails the session is cleared.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<State>(() => ({
    status: isLoggedInFlagSet() ? 'checking' : 'anonymous',
    user: null,
  }));
  const statusRef = useRef(state.status);
  useEffect(() => {
    statusRef.current = state.status;
  }, [state.status]);

  useEffect(() => {
    if (state.status !== 'checking') return;
    let cancelled = false;
    fetchMe({ silent: true })
      .then((user) => {
        if (cancelled) return;
        queryClient.setQueryData(authKeys.me, user);
        setState({ status: 'authenticated', user });
      })
      .catch(() => {
        if (cancelled) return;
        clearSession();
        setState({ status: 'anonymous', user: null });
      });
    return () => {
      cancelled = true;
    };
    // Runs once, for the start-up check; later changes come from login and logout.
  }, []);

  useEffect(
    () =>
      setApiHandlers({
        onUnauthorized: () => {
          // The client has already cleared the stored key and flag.
          if (statusRef.current === 'anonymous') return;
          queryClient.clear();
          setState({ status: 'anonymous', user: null });
          toast.error(LOGIN_MESSAGES.sessionExpired, { dedupe: true });
        },
        onSessionRefreshed: ({ user }) => {
          queryClient.setQueryData(authKeys.me, user);
          setState((s) => (s.status === 'authenticated' ? { ...s, user } : s));
        },
      }),
    [queryClient],
  );

  const completeLogin = useCallback(
    (apiKey: string, user: User) => {
      saveSession(apiKey);
      queryClient.clear();
      queryClient.setQueryData(authKeys.me, user);
      setState({ status: 'authenticated', user });
    },
    [queryClient],
  );

  const updateUser = useCallback(
    (user: User) => {
      queryClient.setQueryData(authKeys.me, user);
      setState((s) => (s.status === 'authenticated' ? { ...s, user } : s));
    },
    [queryClient],
  );

  const logout = useCallback(async () => {
    try {
      await logoutCall();
    } catch {
      // Logging out locally must work even when the server cannot be reached.
    }
    clearSession();
    queryClient.clear();
    setState({ status: 'anonymous', user: null });
  }, [queryClient]);

  const value = useMemo<SessionContextValue>(
    () => ({ status: state.status, user: state.user, completeLogin, updateUser, logout }),
    [state, completeLogin, updateUser, logout],
  );

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
