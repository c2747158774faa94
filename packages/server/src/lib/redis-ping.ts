import net from 'node:net';
import tls from 'node:tls';

/** Sends PING (with AUTH when the URL carries a password) and resolves the round trip in ms. */
export function redisPing(url: string, timeoutMs = 1500): Promise<number> {
  const u = new URL(url);
  const port = Number(u.port || 6379);
  const host = u.hostname || '127.0.0.1';
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket =
      u.protocol === 'rediss:'
        ? tls.connect({ host, port, servername: host })
        : net.connect({ host, port });
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no answer from ${host}:${port}`)));
    socket.on('error', fail);
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('+PONG')) {
        socket.end();
        resolve(Date.now() - started);
      } else if (buf.startsWith('-')) {
        fail(new Error(buf.split('\r\n')[0]!.slice(1)));
      }
    });
    socket.once(u.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => {
      const pass = decodeURIComponent(u.password);
      const user = decodeURIComponent(u.username);
      if (pass) socket.write(user ? `AUTH ${user} ${pass}\r\n` : `AUTH ${pass}\r\n`);
      socket.write('PING\r\n');
    });
  });
}
