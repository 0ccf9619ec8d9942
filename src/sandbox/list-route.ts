import type { ServerResponse } from 'node:http';
import { compareReplays, type CatalogReplay } from './catalog.js';
import { badRequest, pageSizeParam, singleParam, type SandboxContext } from './context.js';
import { sendJson } from './http-util.js';
import { SANDBOX_DEFAULTS } from './options.js';
import type { ListTokenState } from './page-token.js';
import { excerpt, splitReplayId } from './replay-id.js';
import type { ReplayRecordJson } from './replicas.js';
import { parseIsoTime } from './timestamps.js';

interface ListFilter {
  pid: string | null;
  from: number | null;
  to: number | null;
}

function timeParam(query: URLSearchParams, name: 'start_time' | 'end_time'): number | null {
  const raw = singleParam(query, name);
  if (raw === null) return null;
  const ms = parseIsoTime(raw);
  if (ms === null) throw badRequest('invalid_time', `${name} must be an ISO 8601 timestamp, got "${excerpt(raw)}"`);
  return ms;
}

function matches(r: CatalogReplay, f: ListFilter): boolean {
  if (f.pid !== null && String(r.record.platform_id) !== f.pid) return false;
  if (f.from !== null && r.startMs < f.from) return false;
  if (f.to !== null && r.startMs > f.to) return false;
  return true;
}

/** Index of the first replay (ascending) that sorts after (startMs, id). */
function firstAfter(sorted: readonly CatalogReplay[], startMs: number, id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const r = sorted[mid]!;
    if (compareReplays({ startMs: r.startMs, id: r.record.replay_id }, { startMs, id }) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The catalogue in `sort` order, starting strictly after the last replay of the previous page (`after`), or from
 * the first replay in that order when there is no previous page.
 */
function* inOrder(
  sorted: readonly CatalogReplay[],
  sort: 'asc' | 'desc',
  after: { startMs: number; id: string } | null,
): Generator<CatalogReplay> {
  if (sort === 'asc') {
    for (let i = after === null ? 0 : firstAfter(sorted, after.startMs, after.id); i < sorted.length; i++)
      yield sorted[i]!;
    return;
  }
  let start = sorted.length - 1;
  if (after !== null) {
    // Last index that sorts strictly before (startMs, id).
    start = firstAfter(sorted, after.startMs, after.id) - 1;
    while (start >= 0) {
      const r = sorted[start]!;
      if (compareReplays({ startMs: r.startMs, id: r.record.replay_id }, after) < 0) break;
      start--;
    }
  }
  for (let i = start; i >= 0; i--) yield sorted[i]!;
}

/** GET /api/1/session-replays */
export function handleList(ctx: SandboxContext, query: URLSearchParams, res: ServerResponse): void {
  const replayIds = query.getAll('replay_id');
  if (replayIds.length > SANDBOX_DEFAULTS.maxReplayIds) {
    throw badRequest(
      'too_many_replay_ids',
      `at most ${SANDBOX_DEFAULTS.maxReplayIds} replay_id values per request, got ${replayIds.length}`,
    );
  }
  for (const id of replayIds) {
    if (splitReplayId(id) === null) {
      throw badRequest('invalid_replay_id', `replay_id must be device_id/session_id, got "${excerpt(id)}"`);
    }
  }
  const amplitudeId = singleParam(query, 'amplitude_id');
  const pageToken = singleParam(query, 'page_token');
  if (replayIds.length > 0 && amplitudeId !== null) {
    throw badRequest('conflicting_parameters', 'amplitude_id and replay_id cannot be passed together');
  }
  if (replayIds.length > 0 && pageToken !== null) {
    throw badRequest('conflicting_parameters', 'replay_id and page_token cannot be passed together');
  }
  let pid: string | null = null;
  if (amplitudeId !== null) {
    if (!/^-?\d{1,30}$/.test(amplitudeId)) {
      throw badRequest('invalid_amplitude_id', `amplitude_id must be an integer, got "${excerpt(amplitudeId)}"`);
    }
    pid = BigInt(amplitudeId).toString();
  }
  const sortParam = singleParam(query, 'sort_order');
  if (sortParam !== null && sortParam !== 'asc' && sortParam !== 'desc') {
    throw badRequest('invalid_sort_order', `sort_order must be asc or desc, got "${excerpt(sortParam)}"`);
  }
  // Not named by the spec: applied unless the sandbox is told to ignore them (options.ts ignoreTimeFilters).
  const ignoreTimes = ctx.opts.ignoreTimeFilters;
  const from = ignoreTimes ? null : timeParam(query, 'start_time');
  const to = ignoreTimes ? null : timeParam(query, 'end_time');
  if (from !== null && to !== null && from > to) throw badRequest('invalid_time', 'start_time is after end_time');

  if (replayIds.length > 0) {
    // Lookup by id: page_size is ignored, next_page_token is always null.
    const sort = sortParam ?? ctx.opts.sortOrder;
    const filter: ListFilter = { pid: null, from, to };
    const found = new Map<string, CatalogReplay>();
    for (const id of replayIds) {
      const r = ctx.catalog.get(id);
      if (r !== undefined && matches(r, filter)) found.set(id, r);
    }
    const list = [...found.values()].sort((a, b) =>
      compareReplays({ startMs: a.startMs, id: a.record.replay_id }, { startMs: b.startMs, id: b.record.replay_id }),
    );
    if (sort === 'desc') list.reverse();
    sendJson(
      res,
      200,
      { session_replays: list.map((r) => r.record), next_page_token: null },
      {},
      ctx.faults.slowBodyMs('api'),
    );
    return;
  }

  const pageSize = pageSizeParam(query, SANDBOX_DEFAULTS.listPageSize, SANDBOX_DEFAULTS.listPageSizeMax);
  let sort: 'asc' | 'desc' = sortParam ?? ctx.opts.sortOrder;
  let filter: ListFilter = { pid, from, to };
  let after: { startMs: number; id: string } | null = null;
  if (pageToken !== null) {
    const state = ctx.tokens.decode(pageToken);
    if (state === null || state.k !== 'list') {
      throw badRequest('invalid_page_token', 'page_token is not a next_page_token of this endpoint');
    }
    if (sortParam !== null && sortParam !== state.sort) {
      throw badRequest(
        'sort_order_mismatch',
        `sort_order ${sortParam} differs from the ${state.sort} of the request that issued this page_token`,
      );
    }
    const differs = (name: string, given: string | number | null, kept: string | number | null): void => {
      if (given !== null && given !== kept) {
        throw badRequest('page_token_mismatch', `${name} differs from the request that issued this page_token`);
      }
    };
    differs('amplitude_id', pid, state.pid);
    differs('start_time', from, state.from);
    differs('end_time', to, state.to);
    sort = state.sort;
    filter = { pid: state.pid, from: state.from, to: state.to };
    after = { startMs: state.lastStartMs, id: state.lastId };
  }

  const endless = ctx.faults.endlessToken('list');
  if (endless !== null) after = null;
  const page: CatalogReplay[] = [];
  let more = false;
  for (const r of inOrder(ctx.catalog.sorted, sort, after)) {
    if (!matches(r, filter)) continue;
    if (page.length === pageSize) {
      more = true;
      break;
    }
    page.push(r);
  }
  let next: string | null = null;
  if (endless !== null) {
    next = ctx.tokens.encode({
      k: 'list',
      sort,
      pid: filter.pid,
      from: filter.from,
      to: filter.to,
      lastStartMs: 0,
      lastId: '',
      n: endless,
    });
  } else if (more) {
    const last = page[page.length - 1]!;
    const state: ListTokenState = {
      k: 'list',
      sort,
      pid: filter.pid,
      from: filter.from,
      to: filter.to,
      lastStartMs: last.startMs,
      lastId: last.record.replay_id,
    };
    next = ctx.tokens.encode(state);
  }
  const records: ReplayRecordJson[] = page.map((r) => r.record);
  const growth = ctx.opts.listGrowth;
  if (growth.pages > 0 && growth.perPage > 0) {
    growth.pages--;
    ctx.catalog.grow(growth.perPage, ctx.opts.now());
  }
  sendJson(res, 200, { session_replays: records, next_page_token: next }, {}, ctx.faults.slowBodyMs('api'));
}
