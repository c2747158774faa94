import { roleAllows, type Role } from '@adam/contracts';
import { useSession } from './useSession';

/**
 * True when the logged-in user's role includes `needed`. The one check behind every hidden menu
 * entry and button: the server refuses the call anyway (403), the console only stops offering it.
 */
export function useCan(needed: Role): boolean {
  const { user } = useSession();
  return user ? roleAllows(user.role, needed) : false;
}

/** The logged-in user's role (viewer while no user is known: offer the least). */
export function useRole(): Role {
  return useSession().user?.role ?? 'viewer';
}
