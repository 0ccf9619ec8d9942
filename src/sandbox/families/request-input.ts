/**
 * What a family's request carries, read with a size cap: the decoded path segments below a prefix, a JSON body, and
 * parameters sent in the query or form-encoded in the body. Failures are `ApiRequestError`s (400, 413, 415).
 */
import type { IncomingMessage } from 'node:http';
import { ApiRequestError, badRequest } from '../context.js';
import { BodyTooLargeError, readBody, sameSecret } from '../http-util.js';

/** The path segments below `prefix`, percent-decoded (a `%2F` inside a segment stays inside it). */
export function pathSegments(path: string, prefix: string): string[] {
  const rest = path.slice(prefix.length).replace(/^\//, '');
  if (rest === '') return [];
  return rest.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badRequest(
        'invalid_path',
        `the path segment ${JSON.stringify(s.slice(0, 80))} is not valid percent-encoding`,
      );
    }
  });
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

async function readCapped(req: IncomingMessage, maxBytes: number): Promise<string> {
  try {
    return await readBody(req, maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError)
      throw new ApiRequestError(413, 'payload_too_large', `the request body is larger than ${maxBytes} bytes`);
    throw err;
  }
}

/** A JSON request body (`Content-Type: application/json`). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (mediaType(req) !== 'application/json') {
    throw new ApiRequestError(
      415,
      'unsupported_media_type',
      'a request with a body must send it as JSON (Content-Type: application/json)',
    );
  }
  const text = await readCapped(req, maxBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('invalid_json', 'the body is not JSON');
  }
}

/**
 * Parameters sent as query parameters or form-encoded in the body (`application/x-www-form-urlencoded`); a name given
 * in both places, or twice, is a 400. With `formOnly`, any query parameter is a 400: they must come in the body.
 */
export async function readParams(
  req: IncomingMessage,
  query: URLSearchParams,
  maxBytes: number,
  formOnly = false,
): Promise<Map<string, string>> {
  const type = mediaType(req);
  const text = await readCapped(req, maxBytes);
  if (text !== '' && type !== 'application/x-www-form-urlencoded') {
    throw new ApiRequestError(
      415,
      'unsupported_media_type',
      'the body must be form-encoded (Content-Type: application/x-www-form-urlencoded)',
    );
  }
  if (formOnly && [...query.keys()].length > 0)
    throw badRequest('invalid_request', 'the parameters must be sent form-encoded in the body, not in the query');
  const sources = formOnly ? [new URLSearchParams(text)] : [query, new URLSearchParams(text)];
  const out = new Map<string, string>();
  for (const source of sources) {
    for (const [name, value] of source) {
      if (out.has(name)) throw badRequest('duplicate_parameter', `${name} was given more than once; give it once`);
      out.set(name, value);
    }
  }
  return out;
}

/** `api_key` auth: the parameter must be the project's API key (401 otherwise). */
export function requireApiKey(params: ReadonlyMap<string, string>, apiKey: string): void {
  const given = params.get('api_key');
  if (given === undefined || !sameSecret(given, apiKey))
    throw new ApiRequestError(401, 'unauthorized', 'missing or invalid api_key parameter');
}
