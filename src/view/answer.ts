/** The view server's plain answers: its security headers on every one, and a short text or page sent whole. */
import type { ServerResponse } from 'node:http';

/** The policy of every answer but the replay page: no script, inline styles, forms to this server only. */
export const INDEX_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** A whole answer (a HEAD gets its head only). */
export function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
  csp = INDEX_CSP,
): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...securityHeaders(csp) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function securityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-resource-policy': 'same-origin',
  };
}
