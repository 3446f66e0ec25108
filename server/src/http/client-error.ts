// What Node's HTTP parser refuses before Fastify ever sees a request — headers larger than
// MAX_HEADER_SIZE (431), a request whose headers or body did not arrive in time (408), bytes
// that are not HTTP (400) — answered as problem+json on the raw socket, which then closes.
// (Fastify's own fallback answers these as plain JSON.) The body is problem()'s, like every other;
// there is no request to take an id from, so the answer gets a fresh one.
import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Problem } from '@presence/core';
import { PROBLEM_CONTENT_TYPE, problem } from './problem';

/** Node's default, stated so the README and the 431 detail can name it. */
export const MAX_HEADER_SIZE = 16 * 1024;

function problemFor(code: string | undefined, id: string): Problem {
  if (code === 'HPE_HEADER_OVERFLOW')
    return problem('headers_too_large', `request headers are larger than ${MAX_HEADER_SIZE / 1024} KiB in all`, id);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return problem('request_timeout', 'the request (its headers and body) did not arrive in time', id);
  return problem('invalid_request', 'the request is not well-formed HTTP/1.1', id);
}

/** Writes a complete problem answer on a raw socket (no request to answer through) and ends its side. */
export function writeRawProblem(socket: Socket, answer: Problem, headers: Record<string, string> = {}) {
  const id = answer.request_id ?? randomUUID();
  const body = JSON.stringify({ ...answer, request_id: id });
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${id}\r\n` +
      Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
      'Connection: close\r\n\r\n' +
      body,
  );
}

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket) {
  // A reset peer is gone: there is nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Never write into the middle of a response already under way on this connection.
  const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    writeRawProblem(socket, problemFor(err.code, randomUUID()));
  }
  socket.destroy(err);
}
