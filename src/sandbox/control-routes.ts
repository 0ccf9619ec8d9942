import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from './context.js';
import { FaultsError, validateFaults } from './faults.js';
import { BodyTooLargeError, isLoopback, readBody, sendApiError, sendJson } from './http-util.js';
import { describeReplays } from './describe.js';

export const CONTROL_PREFIX = '/__sandbox/';

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  if (text.trim() === '') return {};
  return JSON.parse(text) as unknown;
}

/**
 * Control routes (no credentials; answered only to loopback peers):
 * GET/POST /__sandbox/faults, GET /__sandbox/stats, POST /__sandbox/release, GET /__sandbox/replays.
 */
export async function handleControl(
  ctx: SandboxContext,
  req: IncomingMessage,
  path: string,
  res: ServerResponse,
): Promise<void> {
  ctx.stats.controlRequests++;
  if (!isLoopback(req.socket.remoteAddress)) {
    sendApiError(res, 403, 'forbidden', 'control routes answer only on loopback');
    return;
  }
  const route = `${req.method ?? ''} ${path.slice(CONTROL_PREFIX.length)}`;
  try {
    switch (route) {
      case 'GET faults':
        sendJson(res, 200, ctx.faults.get());
        return;
      case 'POST faults': {
        ctx.faults.set(validateFaults(await readJson(req)));
        sendJson(res, 200, ctx.faults.get());
        return;
      }
      case 'GET stats':
        sendJson(res, 200, { ...ctx.stats });
        return;
      case 'POST release': {
        const body = (await readJson(req)) as { replay_id?: unknown } | null;
        const id = body !== null && typeof body === 'object' ? body.replay_id : undefined;
        if (id !== undefined && typeof id !== 'string') {
          sendApiError(res, 400, 'invalid_body', 'replay_id must be a string when given');
          return;
        }
        sendJson(res, 200, { released: ctx.catalog.release(id) });
        return;
      }
      case 'GET replays':
        sendJson(res, 200, { replays: describeReplays(ctx.catalog) });
        return;
      default:
        sendApiError(res, 404, 'not_found', 'unknown control route');
    }
  } catch (err) {
    if (err instanceof FaultsError) sendApiError(res, 400, 'invalid_faults', err.message);
    else if (err instanceof SyntaxError) sendApiError(res, 400, 'invalid_json', 'body is not valid JSON');
    else if (err instanceof BodyTooLargeError) sendApiError(res, 413, 'too_large', err.message);
    else throw err;
  }
}
