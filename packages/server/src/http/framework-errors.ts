import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Errors Fastify answers before any route or hook runs, given the `{detail}` body of every other
 * error: a malformed percent-encoding in the URL (FST_ERR_BAD_URL) and the like.
 */
export function frameworkErrors(
  error: Error & { code?: string },
  _req: FastifyRequest,
  reply: FastifyReply,
): void {
  const detail =
    error.code === 'FST_ERR_BAD_URL'
      ? 'Malformed URL: a percent sign must start a valid %XX escape'
      : error.message;
  void reply.status(400).send({ detail });
}

/**
 * Requests Node's HTTP parser refuses (headers or URL over its 16 KiB limit, a line that is not
 * HTTP): answered on the socket, with `{detail}` like the rest, then closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    detail: tooLarge
      ? 'Request headers too large: the URL and headers must fit in 16 KiB'
      : 'Malformed HTTP request',
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
