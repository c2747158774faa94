import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import {
  RealtimeClient,
  type RealtimeClientOptions,
  type RealtimeMessage,
  type RealtimeStatus,
} from './realtimeClient';
import { onSessionEnding } from './sessionEnding';

interface RealtimeValue {
  status: RealtimeStatus;
  connected: boolean;
  authFailed: boolean;
  /** Starts again with fresh counters (after a give-up or an auth failure). */
  reconnect: () => void;
  requestUpdate: () => boolean;
  /** Raw messages for screens that keep local state (step machines, live logs); not the cache. */
  subscribe: (listener: (message: RealtimeMessage) => void) => () => void;
}

const RealtimeContext = createContext<RealtimeValue | null>(null);

/** The channel URL of this page's origin: ws(s)://host/api/v1/ws. */
function channelUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/api/v1/ws`;
}

/**
 * One realtime connection for the logged-in session. Every message goes to `onMessage` (the
 * app's event → query-key table) and to screen subscribers.
 */
export function RealtimeProvider({
  getKey,
  getTicket,
  onMessage,
  onAuthFailure,
  createSocket,
  children,
}: {
  getKey: () => string | null;
  /** Connect with single-use tickets rather than the key in the URL (see RealtimeClient). */
  getTicket?: () => Promise<string>;
  onMessage: (message: RealtimeMessage) => void;
  onAuthFailure?: () => void;
  createSocket?: RealtimeClientOptions['createSocket'];
  children: ReactNode;
}) {
  const handlers = useRef({ onMessage, onAuthFailure, getKey, getTicket });
  handlers.current = { onMessage, onAuthFailure, getKey, getTicket };
  const [client] = useState(
    () =>
      new RealtimeClient({
        url: channelUrl(),
        getKey: () => handlers.current.getKey(),
        getTicket: getTicket && (() => handlers.current.getTicket!()),
        createSocket,
      }),
  );
  const [status, setStatus] = useState<RealtimeStatus>(client.status);

  useEffect(() => {
    const offStatus = client.onStatus((next) => {
      setStatus(next);
      if (next === 'auth_failed') handlers.current.onAuthFailure?.();
    });
    const offMessage = client.onMessage((message) => handlers.current.onMessage(message));
    // Closed on purpose before a logout's call: the server's close that follows is not a failure.
    const offEnding = onSessionEnding(() => client.disconnect());
    client.connect();
    return () => {
      offStatus();
      offMessage();
      offEnding();
      client.disconnect();
    };
  }, [client]);

  const value = useMemo<RealtimeValue>(
    () => ({
      status,
      connected: status === 'open',
      authFailed: status === 'auth_failed',
      reconnect: () => client.connect(),
      requestUpdate: () => client.send({ type: 'request_update' }),
      subscribe: (listener) => client.onMessage(listener),
    }),
    [client, status],
  );
  return <RealtimeContext.Provider value={value}>{children}</RealtimeContext.Provider>;
}

const OFFLINE: RealtimeValue = {
  status: 'idle',
  connected: false,
  authFailed: false,
  reconnect: () => {},
  requestUpdate: () => false,
  subscribe: () => () => {},
};

/** The session's channel; outside a provider (logged out) an idle stand-in. */
export function useRealtime(): RealtimeValue {
  return useContext(RealtimeContext) ?? OFFLINE;
}

/** Calls `handler` for each pushed message of the given types while the component is mounted. */
export function useRealtimeEvent<T extends RealtimeMessage['type']>(
  types: T | readonly T[],
  handler: (message: Extract<RealtimeMessage, { type: T }>) => void,
): void {
  const { subscribe } = useRealtime();
  const ref = useRef(handler);
  ref.current = handler;
  const key = Array.isArray(types) ? types.join(',') : (types as string);
  useEffect(() => {
    const wanted = new Set(key.split(','));
    return subscribe((message) => {
      if (wanted.has(message.type)) ref.current(message as Extract<RealtimeMessage, { type: T }>);
    });
  }, [subscribe, key]);
}
