/**
 * Experiment and flag management (spec document 1): the 22 operations under `/api/1/experiments` and `/api/1/flags`,
 * `Authorization: Bearer <management key>` (checked by the server; Basic is refused with 401), JSON bodies, in-memory
 * state (management-store.ts). Mutations answer 200 with the text `OK`; a create answers `{id, url}`.
 *
 * The spec does not show the error bodies: the sandbox answers its usual `{error, message}` JSON with 400 (a bad
 * body or parameter), 404 (an unknown record, variant, version, inclusion index or deployment), 405 (a method the
 * path does not take, or editing a web / guides-and-surveys experiment), 409 (a key that exists already), 413 and 415.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiRequestError, badRequest } from '../context.js';
import { sendJson } from '../http-util.js';
import { integerIn, objectField, stringArray } from './body-checks.js';
import type { FamilyRoute } from './family-route.js';
import { MANAGEMENT } from '../spec-values.js';
import { checkCreate, checkEdit, checkVariant, type Kind } from './management-checks.js';
import { ManagementStore, NOT_EDITABLE_TYPES, type StoredRecord } from './management-store.js';
import { pathSegments, readJsonBody } from './request-input.js';

/** A body is a few records or 2,000 inclusions at most; 1 MB is ample. */
const MAX_BODY_BYTES = 1_000_000;
/** Spec: at most 2,000 user inclusions on a flag variant (more is a 400); experiments state none. */
const FLAG_VARIANT_INCLUSIONS = MANAGEMENT.flagVariantInclusions;
/** Spec: bulk removal takes at most 100 items. */
const BULK_MAX = MANAGEMENT.bulkDelete;
/** The spec's samples use limit=1000; no maximum is shown. Without `limit`, the sandbox answers every record. */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One request, its path split: `id`, `variantKey` and the last variable segment (`versionId`, `userIndex`, ...). */
interface Call {
  store: ManagementStore;
  req: IncomingMessage;
  query: URLSearchParams;
  vars: string[];
}

/** What an operation answers: a JSON value, or `OK` for a mutation. */
type Answer = { json: unknown } | 'OK';
type Handler = (c: Call) => Promise<Answer> | Answer;

/** The routes below `/api/1/{kind}`: a pattern of segments (`*` a variable) and its handler per method. */
const ROUTES: ReadonlyArray<{ pattern: string[]; methods: Partial<Record<Method, Handler>> }> = [
  { pattern: [], methods: { GET: list, POST: create } },
  { pattern: ['*'], methods: { GET: (c) => ({ json: c.store.json(record(c)) }), PATCH: edit } },
  {
    pattern: ['*', 'versions'],
    methods: { GET: (c) => ({ json: [...record(c).versions].reverse().map(versionJson) }) },
  },
  { pattern: ['*', 'versions', '*'], methods: { GET: version } },
  {
    pattern: ['*', 'variants'],
    methods: { GET: (c) => ({ json: record(c).variants.map((v) => ({ ...v.fields })) }), POST: addVariant },
  },
  // Which method the flag variant edit takes is not shown (POST in a path line, PATCH in a sample): both are accepted.
  {
    pattern: ['*', 'variants', '*'],
    methods: {
      GET: (c) => ({ json: { ...variant(c).fields } }),
      PATCH: editVariant,
      POST: editVariant,
      DELETE: deleteVariant,
    },
  },
  { pattern: ['*', 'variants', '*', 'users'], methods: { GET: listUsers, POST: addUsers, DELETE: removeAllUsers } },
  { pattern: ['*', 'variants', '*', 'users', '*'], methods: { DELETE: removeUser } },
  {
    pattern: ['*', 'variants', '*', 'cohorts'],
    methods: { GET: (c) => ({ json: [...variant(c).cohorts] }), POST: addCohorts },
  },
  { pattern: ['*', 'variants', '*', 'bulk-delete-users'], methods: { DELETE: (c) => bulkRemove(c, 'users') } },
  { pattern: ['*', 'variants', '*', 'bulk-delete-cohorts'], methods: { DELETE: (c) => bulkRemove(c, 'cohorts') } },
  {
    pattern: ['*', 'deployments'],
    methods: { GET: (c) => ({ json: record(c).deployments.map((id) => ({ id })) }), POST: addDeployments },
  },
  { pattern: ['*', 'deployments', '*'], methods: { DELETE: removeDeployment } },
];

function record(c: Call): StoredRecord {
  return c.store.get(c.vars[0]!);
}

function variant(c: Call) {
  return c.store.variant(record(c), c.vars[1]!);
}

/** Runs a change on the record and stores the new version. */
function change(c: Call, apply: (r: StoredRecord) => void): Answer {
  const r = record(c);
  apply(r);
  c.store.changed(r);
  return 'OK';
}

function list(c: Call): Answer {
  const raw = c.query.getAll('limit');
  if (raw.length > 1) throw badRequest('duplicate_parameter', 'limit was given more than once');
  const limit =
    raw.length === 0 ? MAX_LIMIT : integerIn('limit', /^\d{1,15}$/.test(raw[0]!) ? Number(raw[0]) : NaN, 1, MAX_LIMIT);
  return { json: c.store.list(limit).map((r) => c.store.json(r)) };
}

async function create(c: Call): Promise<Answer> {
  const body = checkCreate(c.store.kind, await readJsonBody(c.req, MAX_BODY_BYTES));
  const r = c.store.create(body);
  return { json: { id: r.id, url: c.store.url(r) } };
}

async function edit(c: Call): Promise<Answer> {
  const r = record(c);
  const body = checkEdit(c.store.kind, await readJsonBody(c.req, MAX_BODY_BYTES));
  if (c.store.kind === 'experiments' && NOT_EDITABLE_TYPES.includes(String(r.fields.experimentType))) {
    throw new ApiRequestError(
      405,
      'not_editable',
      `experiment ${r.id} was made by web experimentation or by guides and surveys and cannot be edited here`,
    );
  }
  return change(c, () => (r.fields = { ...r.fields, ...body }));
}

function versionJson(v: StoredRecord['versions'][number]): Record<string, unknown> {
  return { id: String(v.version), version: v.version, createdAt: v.createdAt, config: v.config };
}

function version(c: Call): Answer {
  const versions = record(c).versions;
  const n = /^[1-9]\d{0,8}$/.test(c.vars[1]!) ? Number(c.vars[1]) : 0;
  const v = versions[n - 1];
  if (!v)
    throw new ApiRequestError(
      404,
      'not_found',
      `version ${JSON.stringify(c.vars[1])} not found (versions are numbered 1 to ${versions.length})`,
    );
  return { json: versionJson(v) };
}

async function addVariant(c: Call): Promise<Answer> {
  const body = checkVariant(await readJsonBody(c.req, MAX_BODY_BYTES), false);
  return change(c, (r) => c.store.addVariant(r, body));
}

async function editVariant(c: Call): Promise<Answer> {
  variant(c);
  const body = checkVariant(await readJsonBody(c.req, MAX_BODY_BYTES), true);
  return change(c, (r) => c.store.editVariant(r, c.vars[1]!, body));
}

function deleteVariant(c: Call): Answer {
  return change(c, (r) => c.store.deleteVariant(r, c.vars[1]!));
}

/** `{inclusions}` (or `{users}` of a bulk removal): 1 to `max` non-empty strings. */
async function stringsOf(
  c: Call,
  field: 'inclusions' | 'users' | 'deployments',
  max = Number.MAX_SAFE_INTEGER,
): Promise<string[]> {
  const body = objectField('body', await readJsonBody(c.req, MAX_BODY_BYTES));
  return stringArray(field, body[field], 1, max);
}

/**
 * User inclusions, in the order added (one entry per user: adding one again changes nothing). Their objects are "not
 * shown": the sandbox answers `{index, inclusion}`, where `index` is the inclusion's position in this list, the
 * `{userIndex}` that removes it.
 */
function listUsers(c: Call): Answer {
  return { json: variant(c).users.map((inclusion, index) => ({ index, inclusion })) };
}

async function addUsers(c: Call): Promise<Answer> {
  const v = variant(c);
  const added = (await stringsOf(c, 'inclusions')).filter((u, i, all) => !v.users.includes(u) && all.indexOf(u) === i);
  if (c.store.kind === 'flags' && v.users.length + added.length > FLAG_VARIANT_INCLUSIONS) {
    throw badRequest(
      'too_many_inclusions',
      `a flag variant holds at most ${FLAG_VARIANT_INCLUSIONS} user inclusions (it has ${v.users.length}; ${added.length} more were sent)`,
    );
  }
  return change(c, () => v.users.push(...added));
}

function removeAllUsers(c: Call): Answer {
  const v = variant(c);
  return change(c, () => v.users.splice(0));
}

function removeUser(c: Call): Answer {
  const v = variant(c);
  const raw = c.vars[2]!;
  const index = /^\d{1,9}$/.test(raw) ? Number(raw) : -1;
  if (index < 0 || index >= v.users.length) {
    throw new ApiRequestError(
      404,
      'not_found',
      `no user inclusion at index ${JSON.stringify(raw)} (the variant has ${v.users.length}, indexed from 0)`,
    );
  }
  return change(c, () => v.users.splice(index, 1));
}

async function addCohorts(c: Call): Promise<Answer> {
  const v = variant(c);
  const added = (await stringsOf(c, 'inclusions')).filter(
    (id, i, all) => !v.cohorts.includes(id) && all.indexOf(id) === i,
  );
  return change(c, () => v.cohorts.push(...added));
}

/** Bulk removal: `{users: [...]}` for both users and cohorts (sic), 1 to 100; ids not included are ignored. */
async function bulkRemove(c: Call, which: 'users' | 'cohorts'): Promise<Answer> {
  const v = variant(c);
  const gone = new Set(await stringsOf(c, 'users', BULK_MAX));
  return change(c, () => (v[which] = v[which].filter((x) => !gone.has(x))));
}

async function addDeployments(c: Call): Promise<Answer> {
  const ids = await stringsOf(c, 'deployments');
  return change(c, (r) => (r.deployments = [...new Set([...r.deployments, ...ids])]));
}

function removeDeployment(c: Call): Answer {
  const r = record(c);
  const id = c.vars[1]!;
  if (!r.deployments.includes(id))
    throw new ApiRequestError(404, 'not_found', `deployment ${JSON.stringify(id)} is not one of ${r.id}'s`);
  return change(c, () => (r.deployments = r.deployments.filter((d) => d !== id)));
}

function matchRoute(segments: string[]): { methods: Partial<Record<Method, Handler>>; vars: string[] } | undefined {
  for (const route of ROUTES) {
    if (route.pattern.length !== segments.length) continue;
    if (route.pattern.every((p, i) => p === '*' || p === segments[i])) {
      return { methods: route.methods, vars: segments.filter((_, i) => route.pattern[i] === '*') };
    }
  }
  return undefined;
}

export class ManagementFamily implements FamilyRoute {
  readonly family = 'management';
  readonly #stores: Record<Kind, ManagementStore>;

  constructor(url: string, now: () => number) {
    this.#stores = {
      experiments: new ManagementStore('experiments', url, now),
      flags: new ManagementStore('flags', url, now),
    };
  }

  #kindOf(path: string): Kind | undefined {
    return (['experiments', 'flags'] as const).find((k) => path === `/api/1/${k}` || path.startsWith(`/api/1/${k}/`));
  }

  matches(path: string): boolean {
    return this.#kindOf(path) !== undefined;
  }

  auth(): 'bearer' {
    return 'bearer';
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const kind = this.#kindOf(path)!;
    const route = matchRoute(pathSegments(path, `/api/1/${kind}`));
    if (!route) throw new ApiRequestError(404, 'not_found', 'no such endpoint');
    const handler = route.methods[req.method as Method];
    if (!handler)
      throw new ApiRequestError(
        405,
        'method_not_allowed',
        `${req.method} is not allowed here`,
        Object.keys(route.methods).join(', '),
      );
    const answer = await handler({ store: this.#stores[kind], req, query, vars: route.vars });
    if (answer === 'OK') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '2' });
      res.end('OK');
    } else {
      sendJson(res, 200, answer.json);
    }
  }
}
