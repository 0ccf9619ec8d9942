import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  paceMs = 0,
): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  sendPaced(
    res,
    status,
    { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(bytes.length), ...headers },
    bytes,
    paceMs,
  );
}

/**
 * Sends a response: the headers, then the body at once, or (with `paceMs` > 0, the `slowBodyMs` fault) one byte every
 * `paceMs` ms until the body is sent or the client goes away.
 */
export function sendPaced(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
  paceMs: number,
): void {
  res.writeHead(status, headers);
  if (paceMs <= 0 || body.length <= 1) {
    res.end(body);
    return;
  }
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
    } else if (at === body.length - 1) {
      clearInterval(timer);
      res.end(body.subarray(at));
    } else {
      res.write(body.subarray(at, at + 1));
      at += 1;
    }
  }, paceMs);
  res.once('close', () => clearInterval(timer));
}

/** The API's error body: `{ "error": "<code>", "message": "<why>" }` (and `limit`, the limit a 429 names). */
export function sendApiError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  limit?: string,
): void {
  sendJson(res, status, { error: code, message, ...(limit !== undefined ? { limit } : {}) }, headers);
}

function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An S3-style XML error (`<Error><Code>..</Code><Message>..</Message>...`). */
export function sendS3Error(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  requestId: string,
): void {
  const text =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message>` +
    `<RequestId>${xmlEscape(requestId)}</RequestId><HostId>sandbox</HostId></Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Whether the request carries `Authorization: Basic base64(user:password)` with exactly these credentials. */
export function hasBasicAuth(req: IncomingMessage, user: string, password: string): boolean {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return false;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return false;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  return timingSafeEqual(digest(decoded), digest(`${user}:${password}`));
}

/** Whether the request carries `Authorization: Bearer <token>` with exactly this token. */
export function hasBearerAuth(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m !== null && sameSecret(m[1]!, token);
}

/** Compares a secret sent by a client with the expected one without leaking, through timing, how much matched. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export class BodyTooLargeError extends Error {}

/** Reads a small request body (control routes); rejects past `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 65_536): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLargeError(`body larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** Splits a raw request target into its raw path and its query. */
export function splitTarget(target: string): { path: string; query: URLSearchParams } {
  const q = target.indexOf('?');
  return q < 0
    ? { path: target, query: new URLSearchParams() }
    : { path: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
}
