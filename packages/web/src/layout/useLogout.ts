import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { useSession } from '../session/useSession';

/** Logout: POST /auth/logout, clear the session, go to /. */
export function useLogout() {
  const { logout } = useSession();
  const navigate = useNavigate();
  return useCallback(async () => {
    await logout();
    navigate('/', { replace: true });
  }, [logout, navigate]);
}
