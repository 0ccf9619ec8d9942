/**
 * Taxonomy (spec document 2): the 27 operations under `/api/2/taxonomy` (categories, event types, event, user and
 * group properties) over an in-memory schema (taxonomy-store.ts). HTTP Basic auth (checked by the server), bodies
 * form-encoded. Success is `{success: true}` (reads add `data`); failures are `{success: false, errors: [{message}]}`
 * with the status the spec gives for the call. Every call is charged to the taxonomy limits (GET 1, PUT/POST/DELETE
 * 2; concurrent cost and cost per hour, spec-limits.ts) when it arrives (`arrive`, before any added latency), and its cost is held
 * until it is answered; over a limit it is answered 429 in its failure shape (Retry-After when waiting can help).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody, sendJson } from '../http-util.js';
import type { LimitRefusal, RateLimits } from '../rate-limits.js';
import { TAXONOMY_CALL_COST } from '../spec-limits.js';
import type { FamilyRoute } from './family-route.js';
import { checkName, fail, PROPERTY_FIELDS, TaxonomyFailure, TaxonomyFields } from './taxonomy-form.js';
import { VISIBILITY_FLAGS, type VisibilityFlag } from './taxonomy-records.js';
import { TaxonomyStore } from './taxonomy-store.js';

const PREFIX = '/api/2/taxonomy/';
const MAX_BODY_BYTES = 1_000_000;

type Resource = 'category' | 'event' | 'event-property' | 'user-property' | 'group-property';
const RESOURCES: readonly string[] = ['category', 'event', 'event-property', 'user-property', 'group-property'];

/** One call: what it answers (`data`, or nothing) and its success status. */
interface Outcome {
  data?: unknown;
  status?: number;
}

/** One operation: the fields it takes (any other is a 400) and what it does with them and the path name. */
interface Operation {
  fields: readonly string[];
  // biome-ignore lint/suspicious/noConfusingVoidType: an operation is often a store method that answers nothing (void); the route answers `{}` then.
  run(f: TaxonomyFields, name: string): Outcome | void;
}

const op = (fields: readonly string[], run: Operation['run']): Operation => ({ fields, run });

/** A request's route: the resource, the path name (`''` without one) and whether it ends in `/restore`. */
interface Target {
  resource: Resource;
  name: string;
  restore: boolean;
}

function parseTarget(path: string): Target | undefined {
  const parts = path.slice(PREFIX.length).split('/');
  const [resource, raw, suffix, ...rest] = parts;
  if (!resource || !RESOURCES.includes(resource) || rest.length > 0) return undefined;
  if (suffix !== undefined && suffix !== 'restore') return undefined;
  if (raw === '' || (raw === undefined && suffix !== undefined)) return undefined;
  let name = '';
  if (raw !== undefined) {
    try {
      name = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return { resource: resource as Resource, name, restore: suffix === 'restore' };
}

function flags(f: TaxonomyFields): Partial<Record<VisibilityFlag, boolean>> {
  const out: Partial<Record<VisibilityFlag, boolean>> = {};
  for (const k of VISIBILITY_FLAGS) {
    const v = f.boolean(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function categoryId(name: string): number {
  if (!/^\d{1,9}$/.test(name)) fail(400, `category_id must be an integer (got ${JSON.stringify(name.slice(0, 50))})`);
  return Number(name);
}

export class TaxonomyFamily implements FamilyRoute {
  readonly family = 'taxonomy';
  readonly store = new TaxonomyStore();
  readonly #routes: Readonly<Record<string, Operation>>;

  constructor(private readonly limits: RateLimits) {
    this.#routes = this.#table();
  }

  matches(path: string): boolean {
    return path.startsWith(PREFIX);
  }

  /** The host's concurrency 429 in the taxonomy's failure shape. */
  refuse(res: ServerResponse, message: string, retryAfterSeconds: number): void {
    taxonomyLimited(res, { message, retryAfterSeconds });
  }

  /**
   * Charges a call to the taxonomy limits when it arrives, before the sandbox's added latency, so that its cost is
   * held against the concurrent cost limit for the whole request. True when it was refused (answered here).
   */
  arrive(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const target = parseTarget(path);
    const method = req.method ?? 'GET';
    if (!target || !this.#route(method, target)) return false; // answered 404/405 by handle, uncharged
    const refused = this.limits.taxonomy(TAXONOMY_CALL_COST[method] ?? 2, res);
    if (!refused) return false;
    taxonomyLimited(res, refused);
    return true;
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const target = parseTarget(path);
    const method = req.method ?? 'GET';
    const route = target && this.#route(method, target);
    if (!target || !route) {
      const known = target && ['GET', 'POST', 'PUT', 'DELETE'].filter((m) => this.#route(m, target));
      if (known && known.length > 0)
        return failure(res, 405, `${method} is not allowed here (allowed: ${known.join(', ')})`, {
          Allow: known.join(', '),
        });
      return failure(res, 404, 'no such taxonomy endpoint');
    }
    let body: string;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return failure(res, 413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
      throw err;
    }
    try {
      const out =
        route.run(TaxonomyFields.parse(query, body).only(route.fields), checkName('path name', target.name)) ?? {};
      sendJson(res, out.status ?? 200, out.data === undefined ? { success: true } : { success: true, data: out.data });
    } catch (err) {
      if (!(err instanceof TaxonomyFailure)) throw err;
      failure(res, err.status, err.message);
    }
  }

  #route(method: string, t: Target): Operation | undefined {
    const shape = t.restore ? 'restore' : t.name === '' ? 'all' : 'one';
    return this.#routes[`${method} ${t.resource} ${shape}`];
  }

  /** The 27 operations: `METHOD resource all|one|restore` → operation. */
  #table(): Record<string, Operation> {
    const s = this.store;
    const P = PROPERTY_FIELDS;
    const showDeleted = (f: TaxonomyFields): boolean => f.boolean('showDeleted') ?? false;
    const eventType = (f: TaxonomyFields): string => f.optionalName('event_type') ?? '';
    return {
      'POST category all': op(['category_name'], (f) => s.createCategory(f.name('category_name'))),
      'GET category all': op([], () => ({ data: s.categories() })),
      'GET category one': op([], (_f, name) => ({ data: s.category(name) })),
      'PUT category one': op(['category_name'], (f, name) =>
        s.renameCategory(categoryId(name), f.name('category_name')),
      ),
      'DELETE category one': op([], (_f, name) => s.deleteCategory(categoryId(name))),

      'POST event all': op(['event_type', 'category', 'description', ...VISIBILITY_FLAGS], (f) =>
        s.createEventType(f.name('event_type'), f.optionalName('category'), f.string('description'), flags(f)),
      ),
      'GET event all': op(['showDeleted'], (f) => ({ data: s.eventTypes(showDeleted(f)) })),
      'GET event one': op([], (_f, name) => ({ data: s.eventType(name) })),
      'PUT event one': op(['category', 'display_name', ...VISIBILITY_FLAGS], (f, name) =>
        s.updateEventType(name, f.optionalName('category'), f.string('display_name'), flags(f)),
      ),
      'DELETE event one': op([], (_f, name) => s.deleteEventType(name)),
      'POST event restore': op([], (_f, name) => s.restoreEventType(name)),

      'POST event-property all': op(['event_type', 'event_property', ...P], (f) =>
        s.createEventProperty(eventType(f), f.name('event_property'), f.propertyFields()),
      ),
      // Without `event_property` the list, with it one property (the spec's two GET operations share the path).
      'GET event-property all': op(['event_type', 'event_property'], (f) => {
        const one = f.optionalName('event_property');
        return { data: one === undefined ? s.eventProperties(eventType(f)) : s.eventProperty(eventType(f), one) };
      }),
      'PUT event-property one': op(['event_type', ...P], (f, name) =>
        s.updateEventProperty(eventType(f), name, f.propertyFields()),
      ),
      'DELETE event-property one': op(['event_type'], (f, name) => s.deleteEventProperty(eventType(f), name)),
      'POST event-property restore': op(['event_type'], (f, name) => {
        s.restoreEventProperty(f.optionalName('event_type'), name);
        return { status: 201 };
      }),

      'POST user-property all': op(['user_property', ...P], (f) =>
        s.createUserProperty(f.name('user_property'), f.propertyFields()),
      ),
      'GET user-property all': op(['showDeleted'], (f) => ({ data: s.userProperties(showDeleted(f)) })),
      'GET user-property one': op(['showDeleted'], (f, name) => ({ data: s.userProperty(name, showDeleted(f)) })),
      'PUT user-property one': op(['new_user_property_value', 'description', 'is_hidden'], (f, name) => {
        if (!['new_user_property_value', 'description', 'is_hidden'].some((k) => f.has(k)))
          fail(200, 'nothing to update: give new_user_property_value, description or is_hidden');
        s.updateUserProperty(
          name,
          f.optionalName('new_user_property_value'),
          f.string('description'),
          f.boolean('is_hidden'),
        );
      }),
      'DELETE user-property one': op([], (_f, name) => s.deleteUserProperty(name)),
      'POST user-property restore': op([], (_f, name) => s.restoreUserProperty(name)),

      'POST group-property all': op(['group_type', 'group_property', ...P], (f) =>
        s.createGroupProperty(f.name('group_type'), f.name('group_property'), f.propertyFields()),
      ),
      'GET group-property all': op(['group_type'], (f) => ({ data: s.groupProperties(f.optionalName('group_type')) })),
      'GET group-property one': op(['group_type'], (f, name) => ({
        data: s.groupProperty(f.optionalName('group_type'), name),
      })),
      'PUT group-property one': op(['group_type', ...P], (f, name) => {
        const fields = f.propertyFields();
        if (Object.keys(fields).length === 0) fail(400, `nothing to update: give one of ${P.join(', ')}`);
        s.updateGroupProperty(f.optionalName('group_type'), name, fields);
      }),
    };
  }
}

/** The taxonomy failure body. */
function failure(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { success: false, errors: [{ message }] }, headers);
}

/**
 * A 429 in the taxonomy's failure shape (the spec gives one body for its failures): the message names the limit;
 * Retry-After unless the call's cost alone is over the whole limit.
 */
function taxonomyLimited(res: ServerResponse, r: Pick<LimitRefusal, 'message' | 'retryAfterSeconds'>): void {
  failure(res, 429, r.message, r.retryAfterSeconds !== undefined ? { 'Retry-After': String(r.retryAfterSeconds) } : {});
}
