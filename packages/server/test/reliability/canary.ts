import http from 'node:http';
import type { AddressInfo } from 'node:net';
import diagnostics from 'node:diagnostics_channel';

/**
 * A server that must never be reached: an SSRF check points the server under test at it in
 * every way it can think of and expects 0 hits. It counts TCP connections, not only parsed
 * HTTP requests, so a gopher:// or ftp:// payload that is not HTTP would count too.
 */
export interface Canary {
  port: number;
  /** The loopback addresses it listens on (127.0.0.1, and ::1 when the machine has IPv6). */
  hosts: string[];
  /** Connections accepted so far. */
  hits(): number;
  /** Path of every HTTP request that got through, to name the form that leaked. */
  paths: string[];
  close(): Promise<void>;
}

/**
 * Listens on `hosts` at one port (the first host picks it when `port` is 0); a host that cannot
 * be bound (no IPv6) is left out rather than failing, and `hosts` says which ones listen.
 */
export async function startCanary(
  hosts: readonly string[] = ['127.0.0.1', '::1'],
  port = 0,
): Promise<Canary> {
  let connections = 0;
  const paths: string[] = [];
  const servers: http.Server[] = [];
  const listening: string[] = [];
  for (const host of hosts) {
    const server = http.createServer((req, res) => {
      paths.push(`${host} ${req.method} ${req.url}`);
      res.end('canary');
    });
    server.on('connection', () => connections++);
    server.on('clientError', (_err, socket) => socket.destroy());
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
    } catch (e) {
      if (servers.length === 0) throw e;
      continue;
    }
    port = (server.address() as AddressInfo).port;
    servers.push(server);
    listening.push(host);
  }
  return {
    port,
    hosts: listening,
    hits: () => connections,
    paths,
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}

export interface ConnectAttempt {
  hostname: string;
  port: string | number;
}

/**
 * Every outgoing connection undici opens in this process (the server under test runs in the
 * test's process and its fetcher is undici), via undici's diagnostics channel: the proof that
 * a refused private address was refused before any connection attempt.
 */
export function recordConnects(): { attempts: ConnectAttempt[]; stop(): void } {
  const attempts: ConnectAttempt[] = [];
  const onConnect = (message: unknown) => {
    const { hostname, port } = (message as { connectParams: ConnectAttempt }).connectParams;
    attempts.push({ hostname, port });
  };
  diagnostics.subscribe('undici:client:beforeConnect', onConnect);
  return {
    attempts,
    stop: () => diagnostics.unsubscribe('undici:client:beforeConnect', onConnect),
  };
}
