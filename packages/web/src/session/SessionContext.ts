import { createContext } from 'react';
import type { User } from '@adam/contracts';

export type SessionStatus = 'checking' | 'anonymous' | 'authenticated';

export interface SessionContextValue {
  status: SessionStatus;
  user: User | null;
  /** Stores the key and the logged-in flag and enters the dashboard state. */
  completeLogin: (apiKey: string, user: User) => void;
  /** Replaces the known user (e.g. once their one-time password is changed). */
  updateUser: (user: User) => void;
  /** POST /auth/logout (its outcome does not matter), then clears the session. */
  logout: () => Promise<void>;
}

export const SessionContext = createContext<SessionContextValue | null>(null);
