/**
 * Every operation of the typed clients as data: a stable name, the family, method and path, the parameters with their
 * types, whether it takes a JSON body, and the one call of the typed client that runs it. Each `run` calls a client
 * method, so the compiler checks the table against the clients' signatures; the clients validate values and bodies
 * before sending. `replay-export api` (bin/cli/api-command.ts) is built from this table alone.
 *
 * 71 operations: the 22 management operations exist once for experiments and once for flags (names `experiments.*`
 * and `flags.*`, 93 names in all), then mapping 3, group identify 1, attribution 1, taxonomy 27, dashboard 14,
 * feedback 1, session replay 2.
 */
import type { ApiFamily } from '../http/options.js';
import type { AuthStyle } from '../http/auth.js';
import type { HostKind } from '../http/regions.js';
import type { ApiResponse, HttpMethod, QueryValue, Transport } from '../http/transport.js';
import { pathSegment } from '../http/url-parts.js';
import { taxonomyCost } from '../util/spec-constants.js';
import { SessionReplayClient } from '../replay/client.js';
import type { FileVersion } from '../replay/validation.js';
import { ATTRIBUTION_EVENT_BODY, AttributionClient, type AttributionEvent } from './attribution.js';
import { describeBody, type BodySchema } from './body-schema.js';
import { type CallOptions, callSpec } from './call-options.js';
import type { OperationArgs, ParamSpec } from './catalogue-args.js';
import { DashboardClient } from './dashboard.js';
import type { SessionLengthBins } from './dashboard-params.js';
import type { DashboardEvent } from './dashboard-types.js';
import { FEEDBACK_ITEM_BODY, FeedbackClient, type FeedbackItem } from './feedback.js';
import { GROUP_IDENTIFY_BODY, GroupIdentifyClient, type GroupIdentification } from './group-identify.js';
import { CREATE_BODY, EDIT_BODY, VARIANT_BODY, VARIANT_EDIT_BODY } from './management-validation.js';
import { ExperimentsClient, FlagsClient } from './management.js';
import type {
  ExperimentCreate,
  ExperimentEdit,
  FlagCreate,
  FlagEdit,
  Variant,
  VariantEdit,
} from './management-types.js';
import { TaxonomyClient } from './taxonomy.js';
import {
  EVENT_TYPE_CREATE_BODY,
  EVENT_TYPE_UPDATE_BODY,
  type EventTypeCreate,
  type EventTypeUpdate,
} from './taxonomy-events.js';
import {
  EVENT_PROPERTY_CREATE_BODY,
  EVENT_PROPERTY_UPDATE_BODY,
  GROUP_PROPERTY_CREATE_BODY,
  GROUP_PROPERTY_UPDATE_BODY,
  USER_PROPERTY_CREATE_BODY,
  USER_PROPERTY_UPDATE_BODY,
  type EventPropertyCreate,
  type EventPropertyUpdate,
  type GroupPropertyCreate,
  type GroupPropertyUpdate,
  type UserPropertyCreate,
  type UserPropertyUpdate,
} from './taxonomy-properties.js';
import { filesOfListedReplay, replaysInRange, requireListed } from './replay-files.js';
import { MAPPING_BODY, UserMappingClient, type UserMapping } from './user-mapping.js';

export { knownNames, OperationArgs, paramTypeText } from './catalogue-args.js';
export type { ParamSpec, ParamType } from './catalogue-args.js';

/** One client of each family, built on one transport (`transport`: what `sendRaw` sends through). */
export class ApiClients {
  readonly transport: Transport;
  readonly experiments: ExperimentsClient;
  readonly flags: FlagsClient;
  readonly userMapping: UserMappingClient;
  readonly groupIdentify: GroupIdentifyClient;
  readonly attribution: AttributionClient;
  readonly taxonomy: TaxonomyClient;
  readonly dashboard: DashboardClient;
  readonly feedback: FeedbackClient;
  readonly replay: SessionReplayClient;

  constructor(transport: Transport) {
    this.transport = transport;
    this.experiments = new ExperimentsClient(transport);
    this.flags = new FlagsClient(transport);
    this.userMapping = new UserMappingClient(transport);
    this.groupIdentify = new GroupIdentifyClient(transport);
    this.attribution = new AttributionClient(transport);
    this.taxonomy = new TaxonomyClient(transport);
    this.dashboard = new DashboardClient(transport);
    this.feedback = new FeedbackClient(transport);
    this.replay = new SessionReplayClient(transport);
  }
}

export interface Operation {
  /** Stable dotted name, e.g. `flags.variants.create`. */
  readonly name: string;
  readonly family: ApiFamily;
  readonly method: HttpMethod;
  readonly path: string;
  readonly summary: string;
  readonly params: readonly ParamSpec[];
  /** What the JSON body holds, when the operation takes one (`--body`): `describeBody(bodySchema)`. */
  readonly body?: string;
  /** The body's fields, required ones and types: what the client checks and what `body` describes. */
  readonly bodySchema?: BodySchema;
  /** `csv`: the result is CSV text, printed as is. */
  readonly output: 'json' | 'csv';
  run(c: ApiClients, a: OperationArgs, body: unknown, o: CallOptions): Promise<unknown>;
  /** Paged operations: every record of every page, in order (`--paginate`). */
  paginate?(c: ApiClients, a: OperationArgs, o: CallOptions): AsyncIterable<unknown>;
  /**
   * The client's own check of an answer, on the API's shape, where the client does what the API may not (replay.list
   * filters its replays by `startTime`/`endTime`): what `api` prints is the answer with it applied.
   */
  answer?(answer: unknown, a: OperationArgs): unknown;
}

/** What an operation takes and calls, beside its family, name, route and summary. */
type Spec = Pick<Operation, 'bodySchema' | 'run' | 'paginate' | 'answer'> & {
  output?: 'csv';
  params?: readonly ParamSpec[];
};

/** One operation; `route` is its method and path: `GET /api/2/realtime`. */
function op(family: ApiFamily, name: string, route: string, summary: string, s: Spec): Operation {
  const [method, path] = route.split(' ') as [HttpMethod, string];
  return {
    family,
    name,
    method,
    path,
    summary,
    ...s,
    output: s.output ?? 'json',
    params: s.params ?? [],
    ...(s.bodySchema ? { body: describeBody(s.bodySchema) } : {}),
  };
}

/** `p` under the spec's own name for it too (`ParamSpec.wire`): what the request carries. */
const as = (wire: string, p: ParamSpec): ParamSpec => ({ ...p, wire });
/** A parameter of `type`, required unless `required` is false. */
const param =
  (type: ParamSpec['type']) =>
  (name: string, help: string, required = true): ParamSpec => ({ name, type, help, ...(required ? { required } : {}) });
const str = param('string');
const int = param('integer');
const json = param('json');
const bool = (name: string, help: string): ParamSpec => ({ name, type: 'boolean', help });
const list = (name: string, help: string): ParamSpec => ({ name, type: 'string[]', help, required: true });

const ID = str('id', 'experiment or flag id');
const VARIANT = str('variantKey', 'variant key');

/** What the management operations of one kind share: the kind, its client, and `mop`, which makes one of them. */
interface Managed {
  kind: 'experiments' | 'flags';
  m: (c: ApiClients) => ExperimentsClient | FlagsClient;
  /** An operation named after the kind (`flags.get`), its path after the kind's base (`GET /{id}`). */
  mop: (name: string, route: string, summary: string, s: Spec) => Operation;
}

/** The 22 operations shared by experiments and flags (spec document 1). */
function managementOperations(kind: 'experiments' | 'flags'): Operation[] {
  const mop: Managed['mop'] = (name, route, summary, s) => {
    const [method, rest = ''] = route.split(' ');
    return op('management', `${kind}.${name}`, `${method} /api/1/${kind}${rest}`, summary, s);
  };
  const managed: Managed = { kind, m: (c) => c[kind], mop };
  return [...itemsAndVariants(managed), ...inclusionsAndDeployments(managed)];
}

/** Management operations: the experiment or flag itself (list, get, create, update, its versions), its variants. */
function itemsAndVariants({ kind, m, mop }: Managed): Operation[] {
  return [
    mop('list', 'GET', `list ${kind}, most recent first`, {
      params: [int('limit', 'at most this many', false)],
      run: (c, a, _b, o) => m(c).list({ ...o, ...a.optional('limit') }),
    }),
    mop('get', 'GET /{id}', `one of the ${kind}`, { params: [ID], run: (c, a, _b, o) => m(c).get(a.string('id'), o) }),
    mop('create', 'POST', `create (answers {id, url})`, {
      bodySchema: CREATE_BODY[kind],
      run: (c, _a, b, o) =>
        kind === 'flags' ? c.flags.create(b as FlagCreate, o) : c.experiments.create(b as ExperimentCreate, o),
    }),
    mop('update', 'PATCH /{id}', 'partial edit', {
      params: [ID],
      bodySchema: EDIT_BODY[kind],
      run: (c, a, b, o) =>
        kind === 'flags'
          ? c.flags.update(a.string('id'), b as FlagEdit, o)
          : c.experiments.update(a.string('id'), b as ExperimentEdit, o),
    }),
    mop('versions.list', 'GET /{id}/versions', 'versions, newest first', {
      params: [ID],
      run: (c, a, _b, o) => m(c).listVersions(a.string('id'), o),
    }),
    mop('versions.get', 'GET /{id}/versions/{versionId}', 'one version', {
      params: [ID, str('versionId', 'version id')],
      run: (c, a, _b, o) => m(c).getVersion(a.string('id'), a.string('versionId'), o),
    }),
    mop('variants.list', 'GET /{id}/variants', 'variants', {
      params: [ID],
      run: (c, a, _b, o) => m(c).listVariants(a.string('id'), o),
    }),
    mop('variants.get', 'GET /{id}/variants/{variantKey}', 'one variant', {
      params: [ID, VARIANT],
      run: (c, a, _b, o) => m(c).getVariant(a.string('id'), a.string('variantKey'), o),
    }),
    mop('variants.create', 'POST /{id}/variants', 'add a variant', {
      params: [ID],
      bodySchema: VARIANT_BODY,
      run: (c, a, b, o) => m(c).createVariant(a.string('id'), b as Variant, o),
    }),
    mop('variants.update', 'PATCH /{id}/variants/{variantKey}', 'edit a variant', {
      params: [ID, VARIANT],
      bodySchema: VARIANT_EDIT_BODY,
      run: (c, a, b, o) => m(c).updateVariant(a.string('id'), a.string('variantKey'), b as VariantEdit, o),
    }),
    mop('variants.delete', 'DELETE /{id}/variants/{variantKey}', 'remove a variant', {
      params: [ID, VARIANT],
      run: (c, a, _b, o) => m(c).deleteVariant(a.string('id'), a.string('variantKey'), o),
    }),
  ];
}

/** Management operations: a variant's user and cohort inclusions, and the deployments. */
function inclusionsAndDeployments({ m, mop }: Managed): Operation[] {
  return [
    mop('variants.users.list', 'GET /{id}/variants/{variantKey}/users', "a variant's user inclusions", {
      params: [ID, VARIANT],
      run: (c, a, _b, o) => m(c).listVariantUsers(a.string('id'), a.string('variantKey'), o),
    }),
    mop('variants.cohorts.list', 'GET /{id}/variants/{variantKey}/cohorts', "a variant's cohort ids", {
      params: [ID, VARIANT],
      run: (c, a, _b, o) => m(c).listVariantCohorts(a.string('id'), a.string('variantKey'), o),
    }),
    mop('variants.users.add', 'POST /{id}/variants/{variantKey}/users', 'include users or devices', {
      params: [ID, VARIANT, list('inclusions', 'user or device ids')],
      run: (c, a, _b, o) => m(c).addVariantUsers(a.string('id'), a.string('variantKey'), a.strings('inclusions'), o),
    }),
    mop('variants.cohorts.add', 'POST /{id}/variants/{variantKey}/cohorts', 'include cohorts', {
      params: [ID, VARIANT, as('inclusions', list('cohortIds', 'cohort ids'))],
      run: (c, a, _b, o) => m(c).addVariantCohorts(a.string('id'), a.string('variantKey'), a.strings('cohortIds'), o),
    }),
    mop('variants.users.remove', 'DELETE /{id}/variants/{variantKey}/users/{userIndex}', 'remove one user inclusion', {
      params: [ID, VARIANT, str('userIndex', 'user index')],
      run: (c, a, _b, o) => m(c).removeVariantUser(a.string('id'), a.string('variantKey'), a.string('userIndex'), o),
    }),
    mop('variants.users.remove-all', 'DELETE /{id}/variants/{variantKey}/users', 'remove every user inclusion', {
      params: [ID, VARIANT],
      run: (c, a, _b, o) => m(c).removeAllVariantUsers(a.string('id'), a.string('variantKey'), o),
    }),
    mop('variants.users.bulk-remove', 'DELETE /{id}/variants/{variantKey}/bulk-delete-users', 'remove 1 to 100 users', {
      params: [ID, VARIANT, list('users', 'user ids')],
      run: (c, a, _b, o) => m(c).bulkRemoveVariantUsers(a.string('id'), a.string('variantKey'), a.strings('users'), o),
    }),
    mop(
      'variants.cohorts.bulk-remove',
      'DELETE /{id}/variants/{variantKey}/bulk-delete-cohorts',
      'remove 1 to 100 cohorts',
      {
        params: [ID, VARIANT, as('users', list('cohortIds', 'cohort ids'))],
        run: (c, a, _b, o) =>
          m(c).bulkRemoveVariantCohorts(a.string('id'), a.string('variantKey'), a.strings('cohortIds'), o),
      },
    ),
    mop('deployments.list', 'GET /{id}/deployments', 'deployments', {
      params: [ID],
      run: (c, a, _b, o) => m(c).listDeployments(a.string('id'), o),
    }),
    mop('deployments.add', 'POST /{id}/deployments', 'add deployments', {
      params: [ID, as('deployments', list('deploymentIds', 'deployment ids'))],
      run: (c, a, _b, o) => m(c).addDeployments(a.string('id'), a.strings('deploymentIds'), o),
    }),
    mop('deployments.remove', 'DELETE /{id}/deployments/{deploymentId}', 'remove a deployment', {
      params: [ID, str('deploymentId', 'deployment id')],
      run: (c, a, _b, o) => m(c).removeDeployment(a.string('id'), a.string('deploymentId'), o),
    }),
  ];
}

/** How a mapping batch travels: `auto` picks the query while it is short (docs/CLIENTS.md, "User mapping"). */
const MAPPING_ENCODING: ParamSpec = {
  ...str('encoding', 'where mapping and api_key travel', false),
  values: ['auto', 'query', 'form'],
  default: 'auto: the query while the batch is short, else a form body',
};
/** Attribution: "sent form-encoded or as query parameters". */
const ATTRIBUTION_ENCODING: ParamSpec = {
  ...str('encoding', 'where api_key and event travel', false),
  values: ['form', 'query'],
  default: 'form',
};

const INGEST: Operation[] = [
  op('ingest', 'user-mapping.map', 'POST /usermap', 'map users to global user ids', {
    params: [MAPPING_ENCODING],
    bodySchema: MAPPING_BODY,
    run: (c, a, b, o) => c.userMapping.map(b as UserMapping[], { ...o, ...a.optional('encoding') }),
  }),
  op('ingest', 'user-mapping.unmap', 'POST /usermap', 'remove mappings', {
    params: [list('userIds', 'user ids'), MAPPING_ENCODING],
    run: (c, a, _b, o) => c.userMapping.unmap(a.strings('userIds'), { ...o, ...a.optional('encoding') }),
  }),
  op('dashboard', 'user-mapping.get', 'GET /api/2/usermap', 'mappings of user ids', {
    params: [as('user_ids', list('userIds', 'user ids'))],
    run: (c, a, _b, o) => c.userMapping.getMappings(a.strings('userIds'), o),
  }),
  op('ingest', 'group-identify.identify', 'POST /groupidentify', 'set group properties', {
    bodySchema: GROUP_IDENTIFY_BODY,
    run: (c, _a, b, o) => c.groupIdentify.identify(b as GroupIdentification[], o),
  }),
  op('ingest', 'attribution.send', 'POST /attribution', 'send an attribution event', {
    params: [ATTRIBUTION_ENCODING],
    bodySchema: ATTRIBUTION_EVENT_BODY,
    run: (c, a, b, o) => c.attribution.send(b as AttributionEvent, { ...o, ...a.optional('encoding') }),
  }),
];

const T = '/api/2/taxonomy';
const SHOW_DELETED = bool('showDeleted', 'include deleted ones');
const EVENT_TYPE = as('event_type', str('eventType', 'event type', false));
const GROUP_TYPE = as('group_type', str('groupType', 'group type', false));
const tax = (name: string, route: string, summary: string, s: Spec): Operation =>
  op('taxonomy', name, route, summary, s);

const TAXONOMY: Operation[] = [
  tax('taxonomy.categories.create', `POST ${T}/category`, 'create a category', {
    params: [as('category_name', str('categoryName', 'category name'))],
    run: (c, a, _b, o) => c.taxonomy.categories.create(a.string('categoryName'), o),
  }),
  tax('taxonomy.categories.list', `GET ${T}/category`, 'categories', {
    run: (c, _a, _b, o) => c.taxonomy.categories.list(o),
  }),
  tax('taxonomy.categories.get', `GET ${T}/category/{categoryName}`, 'one category', {
    params: [as('category_name', str('categoryName', 'category name'))],
    run: (c, a, _b, o) => c.taxonomy.categories.get(a.string('categoryName'), o),
  }),
  tax('taxonomy.categories.update', `PUT ${T}/category/{categoryId}`, 'rename a category', {
    params: [as('category_id', int('categoryId', 'category id')), as('category_name', str('categoryName', 'new name'))],
    run: (c, a, _b, o) => c.taxonomy.categories.rename(a.integer('categoryId'), a.string('categoryName'), o),
  }),
  tax('taxonomy.categories.delete', `DELETE ${T}/category/{categoryId}`, 'delete a category', {
    params: [as('category_id', int('categoryId', 'category id'))],
    run: (c, a, _b, o) => c.taxonomy.categories.delete(a.integer('categoryId'), o),
  }),
  tax('taxonomy.event-types.create', `POST ${T}/event`, 'plan an event type', {
    bodySchema: EVENT_TYPE_CREATE_BODY,
    run: (c, _a, b, o) => c.taxonomy.eventTypes.create(b as EventTypeCreate, o),
  }),
  tax('taxonomy.event-types.list', `GET ${T}/event`, 'event types', {
    params: [SHOW_DELETED],
    run: (c, a, _b, o) => c.taxonomy.eventTypes.list({ ...o, ...a.optional('showDeleted') }),
  }),
  tax('taxonomy.event-types.get', `GET ${T}/event/{eventType}`, 'one event type', {
    params: [as('event_type', str('eventType', 'event type'))],
    run: (c, a, _b, o) => c.taxonomy.eventTypes.get(a.string('eventType'), o),
  }),
  tax('taxonomy.event-types.update', `PUT ${T}/event/{eventType}`, 'edit an event type', {
    params: [as('event_type', str('eventType', 'event type'))],
    bodySchema: EVENT_TYPE_UPDATE_BODY,
    run: (c, a, b, o) => c.taxonomy.eventTypes.update(a.string('eventType'), b as EventTypeUpdate, o),
  }),
  tax('taxonomy.event-types.delete', `DELETE ${T}/event/{eventType}`, 'delete an event type', {
    params: [as('event_type', str('eventType', 'event type'))],
    run: (c, a, _b, o) => c.taxonomy.eventTypes.delete(a.string('eventType'), o),
  }),
  tax('taxonomy.event-types.restore', `POST ${T}/event/{eventType}/restore`, 'restore a deleted event type', {
    params: [as('event_type', str('eventType', 'event type'))],
    run: (c, a, _b, o) => c.taxonomy.eventTypes.restore(a.string('eventType'), o),
  }),
  tax('taxonomy.event-properties.create', `POST ${T}/event-property`, 'plan an event property', {
    bodySchema: EVENT_PROPERTY_CREATE_BODY,
    run: (c, _a, b, o) => c.taxonomy.eventProperties.create(b as EventPropertyCreate, o),
  }),
  tax('taxonomy.event-properties.list', `GET ${T}/event-property`, 'event properties', {
    params: [EVENT_TYPE],
    run: (c, a, _b, o) => c.taxonomy.eventProperties.list({ ...o, ...a.optional('eventType') }),
  }),
  tax('taxonomy.event-properties.get', `GET ${T}/event-property?event_property=`, 'one event property', {
    params: [as('event_property', str('eventProperty', 'event property')), EVENT_TYPE],
    run: (c, a, _b, o) =>
      c.taxonomy.eventProperties.get(a.string('eventProperty'), { ...o, ...a.optional('eventType') }),
  }),
  tax('taxonomy.event-properties.update', `PUT ${T}/event-property/{eventProperty}`, 'edit an event property', {
    params: [as('event_property', str('eventProperty', 'event property'))],
    bodySchema: EVENT_PROPERTY_UPDATE_BODY,
    run: (c, a, b, o) => c.taxonomy.eventProperties.update(a.string('eventProperty'), b as EventPropertyUpdate, o),
  }),
  tax('taxonomy.event-properties.delete', `DELETE ${T}/event-property/{eventProperty}`, 'delete an event property', {
    params: [as('event_property', str('eventProperty', 'event property')), EVENT_TYPE],
    run: (c, a, _b, o) =>
      c.taxonomy.eventProperties.delete(a.string('eventProperty'), { ...o, ...a.optional('eventType') }),
  }),
  tax(
    'taxonomy.event-properties.restore',
    `POST ${T}/event-property/{eventProperty}/restore`,
    'restore an event property',
    {
      params: [as('event_property', str('eventProperty', 'event property'))],
      run: (c, a, _b, o) => c.taxonomy.eventProperties.restore(a.string('eventProperty'), o),
    },
  ),
  tax('taxonomy.user-properties.create', `POST ${T}/user-property`, 'plan a user property', {
    bodySchema: USER_PROPERTY_CREATE_BODY,
    run: (c, _a, b, o) => c.taxonomy.userProperties.create(b as UserPropertyCreate, o),
  }),
  tax('taxonomy.user-properties.list', `GET ${T}/user-property`, 'user properties', {
    params: [SHOW_DELETED],
    run: (c, a, _b, o) => c.taxonomy.userProperties.list({ ...o, ...a.optional('showDeleted') }),
  }),
  tax('taxonomy.user-properties.get', `GET ${T}/user-property/{userProperty}`, 'one user property', {
    params: [as('user_property', str('userProperty', 'user property')), SHOW_DELETED],
    run: (c, a, _b, o) =>
      c.taxonomy.userProperties.get(a.string('userProperty'), { ...o, ...a.optional('showDeleted') }),
  }),
  tax('taxonomy.user-properties.update', `PUT ${T}/user-property/{userProperty}`, 'edit a user property', {
    params: [as('user_property', str('userProperty', 'user property'))],
    bodySchema: USER_PROPERTY_UPDATE_BODY,
    run: (c, a, b, o) => c.taxonomy.userProperties.update(a.string('userProperty'), b as UserPropertyUpdate, o),
  }),
  tax('taxonomy.user-properties.delete', `DELETE ${T}/user-property/{userProperty}`, 'delete a user property', {
    params: [as('user_property', str('userProperty', 'user property'))],
    run: (c, a, _b, o) => c.taxonomy.userProperties.delete(a.string('userProperty'), o),
  }),
  tax('taxonomy.user-properties.restore', `POST ${T}/user-property/{userProperty}/restore`, 'restore a user property', {
    params: [as('user_property', str('userProperty', 'user property'))],
    run: (c, a, _b, o) => c.taxonomy.userProperties.restore(a.string('userProperty'), o),
  }),
  tax('taxonomy.group-properties.create', `POST ${T}/group-property`, 'plan a group property', {
    bodySchema: GROUP_PROPERTY_CREATE_BODY,
    run: (c, _a, b, o) => c.taxonomy.groupProperties.create(b as GroupPropertyCreate, o),
  }),
  tax('taxonomy.group-properties.list', `GET ${T}/group-property`, 'group properties', {
    params: [GROUP_TYPE],
    run: (c, a, _b, o) => c.taxonomy.groupProperties.list({ ...o, ...a.optional('groupType') }),
  }),
  tax('taxonomy.group-properties.get', `GET ${T}/group-property/{groupProperty}`, 'one group property', {
    params: [as('group_property', str('groupProperty', 'group property')), GROUP_TYPE],
    run: (c, a, _b, o) =>
      c.taxonomy.groupProperties.get(a.string('groupProperty'), { ...o, ...a.optional('groupType') }),
  }),
  tax('taxonomy.group-properties.update', `PUT ${T}/group-property/{groupProperty}`, 'edit a group property', {
    params: [as('group_property', str('groupProperty', 'group property'))],
    bodySchema: GROUP_PROPERTY_UPDATE_BODY,
    run: (c, a, b, o) => c.taxonomy.groupProperties.update(a.string('groupProperty'), b as GroupPropertyUpdate, o),
  }),
];

const START = str('start', 'first day, YYYYMMDD');
const END = str('end', 'last day, YYYYMMDD');
const SEGMENTS = as('s', json('segments', 'segment definitions (JSON array)', false));
const range = (a: OperationArgs) => ({ start: a.string('start'), end: a.string('end'), ...a.optional('segments') });
const dash = (name: string, route: string, summary: string, s: Spec): Operation =>
  op('dashboard', name, route, summary, s);
const RANGE = [START, END, SEGMENTS];

const DASHBOARD: Operation[] = [
  dash('dashboard.chart-csv', 'GET /api/3/chart/{chartId}/csv', "a chart's data as CSV", {
    params: [as('chart_id', str('chartId', 'chart id'))],
    output: 'csv',
    run: (c, a, _b, o) => c.dashboard.chartCsv(a.string('chartId'), o),
  }),
  dash('dashboard.active-users', 'GET /api/2/users', 'active users per day', {
    params: RANGE,
    run: (c, a, _b, o) => c.dashboard.activeUsers({ ...o, ...range(a) }),
  }),
  dash('dashboard.session-length', 'GET /api/2/sessions/length', 'session length distribution', {
    params: [...RANGE, json('bins', '{min, max, timeUnit, binSize?}', false)],
    run: (c, a, _b, o) =>
      c.dashboard.sessionLength({
        ...o,
        ...range(a),
        ...(a.has('bins') ? { bins: a.json('bins') as SessionLengthBins } : {}),
      }),
  }),
  dash('dashboard.average-session-length', 'GET /api/2/sessions/average', 'average session length per day', {
    params: RANGE,
    run: (c, a, _b, o) => c.dashboard.averageSessionLength({ ...o, ...range(a) }),
  }),
  dash('dashboard.sessions-per-user', 'GET /api/2/sessions/peruser', 'sessions per user per day', {
    params: RANGE,
    run: (c, a, _b, o) => c.dashboard.sessionsPerUser({ ...o, ...range(a) }),
  }),
  dash('dashboard.composition', 'GET /api/2/composition', 'user composition by a property', {
    params: [...RANGE, as('p', str('property', 'user property'))],
    run: (c, a, _b, o) => c.dashboard.composition({ ...o, ...range(a), property: a.string('property') }),
  }),
  dash('dashboard.events-list', 'GET /api/2/events/list', "event types with this week's totals", {
    run: (c, _a, _b, o) => c.dashboard.eventsList(o),
  }),
  dash('dashboard.segmentation', 'GET /api/2/events/segmentation', 'event segmentation', {
    params: [...RANGE, as('e', json('event', 'the event (JSON)'))],
    run: (c, a, _b, o) =>
      c.dashboard.eventSegmentation({ ...o, ...range(a), event: a.json('event') as DashboardEvent }),
  }),
  dash('dashboard.funnel', 'GET /api/2/funnels', 'funnel', {
    params: [...RANGE, as('e', json('events', 'the steps (JSON array of events, one e each)'))],
    run: (c, a, _b, o) => c.dashboard.funnel({ ...o, ...range(a), events: a.json('events') as DashboardEvent[] }),
  }),
  dash('dashboard.retention', 'GET /api/2/retention', 'retention', {
    params: [
      ...RANGE,
      as('se', json('startingEvent', 'starting event (JSON)')),
      as('re', json('returningEvent', 'returning event (JSON)')),
    ],
    run: (c, a, _b, o) =>
      c.dashboard.retention({
        ...o,
        ...range(a),
        startingEvent: a.json('startingEvent') as DashboardEvent,
        returningEvent: a.json('returningEvent') as DashboardEvent,
      }),
  }),
  op('useractivity', 'dashboard.user-activity', 'GET /api/2/useractivity', "a user's events", {
    params: [int('user', 'platform id')],
    run: (c, a, _b, o) => c.dashboard.userActivity(a.integer('user'), o),
  }),
  op('useractivity', 'dashboard.user-search', 'GET /api/2/usersearch', 'find users', {
    params: [str('user', 'platform id, device id, user id or prefix')],
    run: (c, a, _b, o) => c.dashboard.userSearch(a.string('user'), o),
  }),
  dash('dashboard.realtime', 'GET /api/2/realtime', 'active users, 5-minute steps', {
    run: (c, _a, _b, o) => c.dashboard.realtime(o),
  }),
  dash('dashboard.revenue-ltv', 'GET /api/2/revenue/ltv', 'revenue lifetime value', {
    params: RANGE,
    run: (c, a, _b, o) => c.dashboard.revenueLtv({ ...o, ...range(a) }),
  }),
];

const REPLAY_FILTERS = [
  as('amplitude_id', int('platformId', 'only this user (platform id)', false)),
  {
    name: 'replayIds',
    wire: 'replay_id',
    type: 'string[]',
    help: 'only these replay ids (up to 100)',
  } satisfies ParamSpec,
  as('start_time', str('startTime', 'replays starting at or after (ISO 8601)', false)),
  as('end_time', str('endTime', 'replays starting at or before (ISO 8601)', false)),
  as('sort_order', { ...str('sortOrder', 'order of start times', false), values: ['asc', 'desc'] }),
  as('page_size', int('pageSize', 'records per page', false)),
];
const FILES_PARAMS = [
  as('replay_id', str('replayId', 'device_id/session_id')),
  { ...int('version', 'file version', false), values: ['2', '3'], default: '3' },
  as('page_size', int('pageSize', 'files per page', false)),
];
const pageToken = as('page_token', str('pageToken', 'page to fetch (from nextPageToken)', false));
const filesQuery = (a: OperationArgs) => ({
  ...a.optional('pageSize'),
  ...(a.has('version') ? { version: a.integer('version') as FileVersion } : {}),
});

const OTHER: Operation[] = [
  // A partial failure is an error here (FeedbackPartialFailureError, carrying the answer), so a script sees it.
  op('feedback', 'feedback.ingest', 'POST /api/1/ai-feedback/ingest', 'ingest feedback items (upsert by unique_id)', {
    params: [as('source_id', str('sourceId', 'source id'))],
    bodySchema: FEEDBACK_ITEM_BODY,
    run: (c, a, b, o) =>
      c.feedback.ingest(a.string('sourceId'), b as FeedbackItem[], { ...o, partialFailure: 'throw' }),
  }),
  op('replay', 'replay.list', 'GET /api/1/session-replays', 'one page of replays (--paginate: every replay)', {
    params: [...REPLAY_FILTERS, pageToken],
    run: (c, a, _b, o) =>
      c.replay.getReplaysPage(
        a.optional('platformId', 'replayIds', 'startTime', 'endTime', 'sortOrder', 'pageSize', 'pageToken'),
        o,
      ),
    paginate: (c, a, o) =>
      c.replay.listReplays(a.optional('platformId', 'replayIds', 'startTime', 'endTime', 'sortOrder', 'pageSize'), o),
    answer: (answer, a) => replaysInRange(answer, a.optional('startTime', 'endTime')),
  }),
  op(
    'replay',
    'replay.files',
    'GET /api/1/session-replays/files',
    "one page of a replay's files (--paginate: every file)",
    {
      params: [...FILES_PARAMS, pageToken],
      run: async (c, a, _b, o) => {
        const page = await c.replay.getFilesPage(a.string('replayId'), {
          ...o,
          ...filesQuery(a),
          ...a.optional('pageToken'),
        });
        if (page.files.length === 0 && !a.has('pageToken')) await requireListed(c.replay, a.string('replayId'), o);
        return page;
      },
      paginate: (c, a, o) =>
        filesOfListedReplay(
          c.replay,
          a.string('replayId'),
          c.replay.listReplayFiles(a.string('replayId'), { ...o, ...filesQuery(a) }),
          o,
        ),
    },
  ),
];

/** Every operation, by stable name, in the order `api --list` prints them. */
export const OPERATIONS: readonly Operation[] = [
  ...managementOperations('experiments'),
  ...managementOperations('flags'),
  ...INGEST,
  ...TAXONOMY,
  ...DASHBOARD,
  ...OTHER,
];

const BY_NAME = new Map(OPERATIONS.map((o) => [o.name, o]));

/** Every operation name, in `api --list` order: what shell completion offers after `api`. */
export function operationNames(): string[] {
  return OPERATIONS.map((o) => o.name);
}

/** Where an operation's requests go and how they authenticate (the clients' own choice, per spec document). */
export function wireOf(op: Operation): { host: HostKind; auth: AuthStyle; form: boolean } {
  if (op.family === 'management') return { host: 'base', auth: 'bearer', form: false };
  if (op.path === '/groupidentify') return { host: 'ingest', auth: 'api_key', form: true };
  if (op.family === 'ingest') return { host: 'api', auth: 'api_key', form: true };
  if (op.family === 'feedback') return { host: 'feedback', auth: 'basic', form: false };
  return { host: 'analytics', auth: 'basic', form: op.family === 'taxonomy' };
}

/** The parameters of `op` that fill its path (`{id}`), by the placeholder's name. */
export function pathParams(op: Operation): ParamSpec[] {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return op.params.filter((p) => names.includes(p.name));
}

/**
 * Sends `body` as given to `op`'s method and path (`api --input`): the path's parameters fill it, every other given
 * parameter goes in the query under the spec's name, unchecked beyond its declared type. Not checked against the body
 * schema and charged the cost of one request (the taxonomy's by its method).
 */
export function sendRaw(
  c: ApiClients,
  op: Operation,
  a: OperationArgs,
  raw: { body: Buffer; contentType: string },
  o: CallOptions,
): Promise<ApiResponse> {
  const inPath = new Set(pathParams(op).map((p) => p.name));
  const path = op.path
    .replace(/\?.*$/, '')
    .replace(/\{(\w+)\}/g, (_m, name: string) => pathSegment(name, a.value(name)));
  const query: Record<string, QueryValue> = {};
  for (const p of op.params) {
    if (inPath.has(p.name) || !a.has(p.name)) continue;
    const v = a.value(p.name);
    query[p.wire ?? p.name] = Array.isArray(v)
      ? (v as string[])
      : typeof v === 'object'
        ? JSON.stringify(v)
        : (v as string);
  }
  const { host, auth } = wireOf(op);
  return c.transport.request({
    method: op.method,
    host,
    path,
    query,
    auth,
    family: op.family,
    cost: op.family === 'taxonomy' ? taxonomyCost(op.method) : 1,
    raw,
    retry: op.method === 'GET',
    ...callSpec(o),
  });
}

export function findOperation(name: string): Operation | undefined {
  return BY_NAME.get(name);
}
