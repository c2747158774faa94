/**
 * Our own logout, said before its call leaves: the server then closes the session's realtime
 * socket (its key is revoked), and that close is the logout working, not an authentication
 * failure to report. The realtime channel listens and closes its socket first, on purpose.
 */
type Listener = () => void;

const listeners = new Set<Listener>();

export function onSessionEnding(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function sessionEnding(): void {
  for (const listener of [...listeners]) listener();
}
