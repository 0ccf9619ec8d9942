import type { ServerResponse } from 'node:http';
import { compareReplays, orderKey, type CatalogReplay } from './catalog.js';
import { badRequest, pageSizeParam, singleParam, type SandboxContext } from './context.js';
import { sendJson } from './http-util.js';
import { SANDBOX_DEFAULTS } from './options.js';
import type { ListTokenState } from './page-token.js';
import { excerpt, splitReplayId } from './replay-id.js';
import type { ReplayRecordJson } from './replicas.js';
import { parseIsoTime } from './timestamps.js';

/** What a listing keeps to (its page tokens remember it). */
type ListFilter = Pick<ListTokenState, 'pid' | 'from' | 'to'>;

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
    if (compareReplays(orderKey(r), { startMs, id }) <= 0) lo = mid + 1;
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
      if (compareReplays(orderKey(r), after) < 0) break;
      start--;
    }
  }
  for (let i = start; i >= 0; i--) yield sorted[i]!;
}

/** The replay list's query, checked. */
interface ListQuery extends ListFilter {
  replayIds: string[];
  pageToken: string | null;
  sortParam: 'asc' | 'desc' | null;
}

function checkReplayIds(replayIds: readonly string[]): void {
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
}

function platformIdParam(amplitudeId: string | null): string | null {
  if (amplitudeId === null) return null;
  if (!/^-?\d{1,30}$/.test(amplitudeId)) {
    throw badRequest('invalid_amplitude_id', `amplitude_id must be an integer, got "${excerpt(amplitudeId)}"`);
  }
  return BigInt(amplitudeId).toString();
}

/** Reads and checks the query: the spec's 400s, then the time filters (unless the sandbox ignores them). */
function listQuery(ctx: SandboxContext, query: URLSearchParams): ListQuery {
  const replayIds = query.getAll('replay_id');
  checkReplayIds(replayIds);
  const amplitudeId = singleParam(query, 'amplitude_id');
  const pageToken = singleParam(query, 'page_token');
  if (replayIds.length > 0 && amplitudeId !== null) {
    throw badRequest('conflicting_parameters', 'amplitude_id and replay_id cannot be passed together');
  }
  if (replayIds.length > 0 && pageToken !== null) {
    throw badRequest('conflicting_parameters', 'replay_id and page_token cannot be passed together');
  }
  const pid = platformIdParam(amplitudeId);
  const sortParam = singleParam(query, 'sort_order');
  if (sortParam !== null && sortParam !== 'asc' && sortParam !== 'desc') {
    throw badRequest('invalid_sort_order', `sort_order must be asc or desc, got "${excerpt(sortParam)}"`);
  }
  // Not named by the spec: applied unless the sandbox is told to ignore them (options.ts ignoreTimeFilters).
  const ignoreTimes = ctx.opts.ignoreTimeFilters;
  const from = ignoreTimes ? null : timeParam(query, 'start_time');
  const to = ignoreTimes ? null : timeParam(query, 'end_time');
  if (from !== null && to !== null && from > to) throw badRequest('invalid_time', 'start_time is after end_time');
  return { replayIds, pid, pageToken, sortParam, from, to };
}

/** Lookup by id: page_size is ignored, next_page_token is always null. */
function byIds(ctx: SandboxContext, q: ListQuery): CatalogReplay[] {
  const filter: ListFilter = { pid: null, from: q.from, to: q.to };
  const found = new Map<string, CatalogReplay>();
  for (const id of q.replayIds) {
    const r = ctx.catalog.get(id);
    if (r !== undefined && matches(r, filter)) found.set(id, r);
  }
  const list = [...found.values()].sort((a, b) => compareReplays(orderKey(a), orderKey(b)));
  if ((q.sortParam ?? ctx.opts.sortOrder) === 'desc') list.reverse();
  return list;
}

/** Where a page starts: the order and filter of the request, or of the one that issued its page_token. */
interface Paging {
  sort: 'asc' | 'desc';
  filter: ListFilter;
  after: { startMs: number; id: string } | null;
}

function paging(ctx: SandboxContext, q: ListQuery): Paging {
  const sort = q.sortParam ?? ctx.opts.sortOrder;
  if (q.pageToken === null) return { sort, filter: { pid: q.pid, from: q.from, to: q.to }, after: null };
  const state = ctx.tokens.decode(q.pageToken);
  if (state === null || state.k !== 'list') {
    throw badRequest('invalid_page_token', 'page_token is not a next_page_token of this endpoint');
  }
  if (q.sortParam !== null && q.sortParam !== state.sort) {
    throw badRequest(
      'sort_order_mismatch',
      `sort_order ${q.sortParam} differs from the ${state.sort} of the request that issued this page_token`,
    );
  }
  const differs = (name: string, given: string | number | null, kept: string | number | null): void => {
    if (given !== null && given !== kept) {
      throw badRequest('page_token_mismatch', `${name} differs from the request that issued this page_token`);
    }
  };
  differs('amplitude_id', q.pid, state.pid);
  differs('start_time', q.from, state.from);
  differs('end_time', q.to, state.to);
  return {
    sort: state.sort,
    filter: { pid: state.pid, from: state.from, to: state.to },
    after: { startMs: state.lastStartMs, id: state.lastId },
  };
}

/** The page's replays (at most `pageSize`) and whether more follow. */
function pageOf(ctx: SandboxContext, p: Paging, pageSize: number): { page: CatalogReplay[]; more: boolean } {
  const page: CatalogReplay[] = [];
  for (const r of inOrder(ctx.catalog.sorted, p.sort, p.after)) {
    if (!matches(r, p.filter)) continue;
    if (page.length === pageSize) return { page, more: true };
    page.push(r);
  }
  return { page, more: false };
}

/** The next page's token: after the page's last replay; with `endlessPages`, a token that starts over. */
function nextToken(
  ctx: SandboxContext,
  p: Paging,
  last: CatalogReplay | undefined,
  endless: number | null,
): string | null {
  const base = { k: 'list' as const, sort: p.sort, pid: p.filter.pid, from: p.filter.from, to: p.filter.to };
  if (endless !== null) return ctx.tokens.encode({ ...base, lastStartMs: 0, lastId: '', n: endless });
  if (last === undefined) return null;
  const state: ListTokenState = { ...base, lastStartMs: last.startMs, lastId: last.record.replay_id };
  return ctx.tokens.encode(state);
}

function sendPage(ctx: SandboxContext, res: ServerResponse, records: ReplayRecordJson[], next: string | null): void {
  sendJson(res, 200, { session_replays: records, next_page_token: next }, {}, ctx.faults.slowBodyMs('api'));
}

/** GET /api/1/session-replays */
export function handleList(ctx: SandboxContext, query: URLSearchParams, res: ServerResponse): void {
  const q = listQuery(ctx, query);
  if (q.replayIds.length > 0) {
    sendPage(
      ctx,
      res,
      byIds(ctx, q).map((r) => r.record),
      null,
    );
    return;
  }
  const pageSize = pageSizeParam(query, SANDBOX_DEFAULTS.listPageSize);
  const p = paging(ctx, q);
  const endless = ctx.faults.endlessToken('list');
  if (endless !== null) p.after = null;
  const { page, more } = pageOf(ctx, p, pageSize);
  const next = nextToken(ctx, p, more ? page[page.length - 1] : undefined, endless);
  const records = page.map((r) => r.record);
  const growth = ctx.opts.listGrowth;
  if (growth.pages > 0 && growth.perPage > 0) {
    growth.pages--;
    ctx.catalog.grow(growth.perPage, ctx.opts.now());
  }
  sendPage(ctx, res, records, next);
}
