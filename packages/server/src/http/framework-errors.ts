import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Fastify's default `maxParamLength`: a longer path parameter matches no route. */
const MAX_PARAM_LENGTH = 100;

/**
 * Errors Fastify answers before any route or hook runs, given the `{detail}` body of every other
 * error: a malformed percent-encoding in the URL (FST_ERR_BAD_URL), a path parameter over its
 * length (414) and the like. The URL is not echoed: it may be 16 KiB long.
 */
export function frameworkErrors(
  error: Error & { code?: string; statusCode?: number },
  _req: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    void reply
      .status(400)
      .send({ detail: 'Malformed URL: a percent sign must start a valid %XX escape' });
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send({
      detail: `URL too long: a path parameter must be at most ${MAX_PARAM_LENGTH} characters`,
    });
  } else {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
    void reply.status(status).send({ detail: error.message });
  }
}

/**
 * Requests Node's HTTP parser refuses (headers or URL over its 16 KiB limit, a line that is not
 * HTTP): answered on the socket, with `{detail}` like the rest, then closed. Node says 431 for
 * both overflows; a request line that alone fills the limit is told 414, as HTTP names it.
 */
export function clientErrorHandler(
  err: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const urlTooLong = tooLarge && requestLineOverflows(err.rawPacket);
  const status = urlTooLong ? 414 : tooLarge ? 431 : 400;
  const body = JSON.stringify({
    detail: urlTooLong
      ? 'URL too long: the URL and headers must fit in 16 KiB'
      : tooLarge
        ? 'Request headers too large: the URL and headers must fit in 16 KiB'
        : 'Malformed HTTP request',
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Whether the packet the parser gave up on is a request line still unfinished past 8 KiB: the
 * URL, not the headers, filled the limit. A packet that does not start the request (a later
 * chunk) is left to the 431.
 */
function requestLineOverflows(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]+ \//.test(packet.subarray(0, 16).toString('latin1')))
    return false;
  const end = packet.indexOf('\r\n');
  return (end === -1 ? packet.length : end) > 8 * 1024;
}
