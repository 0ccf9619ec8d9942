import type { ServerResponse } from 'node:http';
import type { FileVersion } from './catalog.js';
import { ApiRequestError, badRequest, pageSizeParam, singleParam, type SandboxContext } from './context.js';
import { sendJson } from './http-util.js';
import { SANDBOX_DEFAULTS } from './options.js';
import { excerpt, splitReplayId } from './replay-id.js';
import { storageObject } from './storage-keys.js';

/** GET /api/1/session-replays/files */
export function handleFiles(ctx: SandboxContext, query: URLSearchParams, res: ServerResponse): void {
  const replayId = singleParam(query, 'replay_id');
  if (replayId === null) throw badRequest('missing_parameter', 'replay_id is required');
  const parts = splitReplayId(replayId);
  if (parts === null) {
    throw badRequest('invalid_replay_id', `replay_id must be device_id/session_id, got "${excerpt(replayId)}"`);
  }
  const versionParam = singleParam(query, 'version');
  if (versionParam !== null && versionParam !== '2' && versionParam !== '3') {
    throw badRequest('invalid_version', `version must be 2 or 3, got "${excerpt(versionParam)}"`);
  }
  let version: FileVersion = versionParam === null ? SANDBOX_DEFAULTS.fileVersion : versionParam === '2' ? 2 : 3;
  const pageSize = pageSizeParam(query, SANDBOX_DEFAULTS.filesPageSize);
  const pageToken = singleParam(query, 'page_token');
  let lastKey: string | null = null;
  if (pageToken !== null) {
    const state = ctx.tokens.decode(pageToken);
    if (state === null || state.k !== 'files') {
      throw badRequest('invalid_page_token', 'page_token is not a next_page_token of this endpoint');
    }
    if (state.replayId !== replayId) {
      throw badRequest('page_token_mismatch', 'page_token was issued for another replay_id');
    }
    if (versionParam !== null && state.version !== version) {
      throw badRequest(
        'page_token_mismatch',
        `version ${version} differs from the version ${state.version} of this page_token`,
      );
    }
    version = state.version;
    lastKey = state.lastKey;
  }
  const replay = ctx.catalog.get(replayId);
  if (replay === undefined) throw new ApiRequestError(404, 'not_found', 'replay not found');
  const visible = ctx.catalog.visibleFiles(replay, version);
  if (lastKey === null && (ctx.catalog.isHeld(replayId) || visible.length === 0)) {
    throw new ApiRequestError(404, 'not_found', 'no files yet for this replay');
  }
  const endless = ctx.faults.endlessToken('files');
  let start = 0;
  if (lastKey !== null && endless === null) {
    while (start < visible.length && visible[start]!.name <= lastKey) start++;
  }
  const page = visible.slice(start, start + pageSize);
  const now = ctx.opts.now();
  const epoch = ctx.faults.urlEpoch();
  const listing = ctx.faults.filesListing();
  const listed = listing.duplicate && page.length > 0 ? [...page, page[0]!] : [...page];
  if (listing.reversed) listed.reverse();
  const files = listed.map((f) => {
    const obj = storageObject(parts.deviceId, parts.sessionId, version, f.name);
    return ctx.signer.presign(obj.key, obj.path, now, epoch);
  });
  const next =
    endless !== null
      ? ctx.tokens.encode({ k: 'files', replayId, version, lastKey: '', n: endless })
      : start + page.length < visible.length && page.length > 0
        ? ctx.tokens.encode({ k: 'files', replayId, version, lastKey: page[page.length - 1]!.name })
        : null;
  sendJson(res, 200, { files, next_page_token: next }, {}, ctx.faults.slowBodyMs('api'));
}
