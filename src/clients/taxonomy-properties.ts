/**
 * Taxonomy: event, user and group properties (`/event-property`, `/user-property`, `/group-property`).
 */
import { ValidationError } from '../http/errors.js';
import type { CallOptions } from './call-options.js';
import { onlyKeys, optionalBoolean, optionalString, requireObject, requireString, requireStringList } from './checks.js';
import type { TaxonomyCaller } from './taxonomy-call.js';
import type { EventPropertyRecord, GroupPropertyRecord, PropertyFields, UserPropertyRecord } from './taxonomy-types.js';
import { showDeletedQuery, type ShowDeletedOption } from './taxonomy-events.js';

const PROPERTY_FIELDS = ['description', 'type', 'regex', 'enum_values', 'is_array_type', 'is_required', 'is_hidden', 'classifications'];

/** Checks a body: only `allowed` keys, names non-empty, property fields typed. */
function checkBody(body: unknown, allowed: readonly string[], required: readonly string[], optionalNames: readonly string[] = []): Record<string, unknown> {
  const b = requireObject('body', body);
  onlyKeys('body', b, allowed);
  for (const k of required) requireString(k, b[k]);
  for (const k of optionalNames) if (b[k] !== undefined) requireString(k, b[k]);
  for (const k of ['description', 'type', 'regex', 'enum_values', 'new_user_property_value']) optionalString(k, b[k]);
  for (const k of ['is_array_type', 'is_required', 'is_hidden']) optionalBoolean(k, b[k]);
  if (b.classifications !== undefined) requireStringList('classifications', b.classifications);
  return b;
}

function anyField(b: Record<string, unknown>, keys: readonly string[]): void {
  if (!keys.some((k) => b[k] !== undefined)) throw new ValidationError('body', `an update needs at least one of ${keys.join(', ')}`);
}

export interface EventPropertyCreate extends PropertyFields {
  event_type: string;
  event_property: string;
}
export interface EventPropertyUpdate extends PropertyFields {
  /** Required by the spec for the update call. */
  event_type: string;
}
export interface EventTypeOption extends CallOptions {
  /** Sent as the form field `event_type` (the spec puts it in the body, also on GET and DELETE). */
  eventType?: string;
}

/** The `event_type` form field, when the option names one. */
function eventTypeForm(o: EventTypeOption): { form?: { event_type: string } } {
  return o.eventType === undefined ? {} : { form: { event_type: requireString('event_type', o.eventType) } };
}

export class TaxonomyEventProperties {
  readonly #c: TaxonomyCaller;
  constructor(caller: TaxonomyCaller) {
    this.#c = caller;
  }

  /** `POST /event-property` (exists, even deleted: 409 ApiError — call restore instead). */
  async create(body: EventPropertyCreate, o?: CallOptions): Promise<void> {
    checkBody(body, ['event_type', 'event_property', ...PROPERTY_FIELDS], ['event_type', 'event_property']);
    await this.#c.call({ method: 'POST', resource: 'event-property', form: { ...body } }, o);
  }

  /** `GET /event-property` (+ body `event_type`): shared or event-specific properties, deleted ones left out. */
  async list(o: EventTypeOption = {}): Promise<EventPropertyRecord[]> {
    return this.#c.read({ method: 'GET', resource: 'event-property', ...eventTypeForm(o) }, 'array', o);
  }

  /** `GET /event-property?event_property=<name>` (+ body `event_type`); not found: 400 ApiError. */
  async get(eventProperty: string, o: EventTypeOption = {}): Promise<EventPropertyRecord> {
    const query = { event_property: requireString('event_property', eventProperty) };
    return this.#c.read({ method: 'GET', resource: 'event-property', query, ...eventTypeForm(o) }, 'object', o);
  }

  /** `PUT /event-property/:event-property` with `event_type` and the fields to change (not in schema: 409). */
  async update(eventProperty: string, body: EventPropertyUpdate, o?: CallOptions): Promise<void> {
    requireString('event_property', eventProperty);
    const b = checkBody(body, ['event_type', ...PROPERTY_FIELDS], ['event_type']);
    anyField(b, PROPERTY_FIELDS);
    await this.#c.call({ method: 'PUT', resource: 'event-property', segments: [['event_property', eventProperty]], form: { ...body } }, o);
  }

  /** `DELETE /event-property/:event-property`: with `eventType` that event's property, without it the global one. */
  async delete(eventProperty: string, o: EventTypeOption = {}): Promise<void> {
    requireString('event_property', eventProperty);
    await this.#c.call({ method: 'DELETE', resource: 'event-property', segments: [['event_property', eventProperty]], ...eventTypeForm(o) }, o);
  }

  /** `POST /event-property/:event-property/restore` (answers 201). */
  async restore(eventProperty: string, o?: CallOptions): Promise<void> {
    requireString('event_property', eventProperty);
    await this.#c.call({ method: 'POST', resource: 'event-property', segments: [['event_property', eventProperty]], suffix: 'restore' }, o);
  }
}

export interface UserPropertyCreate extends PropertyFields {
  user_property: string;
}
export interface UserPropertyUpdate {
  /** New name of the property. */
  new_user_property_value?: string;
  description?: string;
  /** Only on ingested properties. */
  is_hidden?: boolean;
}

export class TaxonomyUserProperties {
  readonly #c: TaxonomyCaller;
  constructor(caller: TaxonomyCaller) {
    this.#c = caller;
  }

  /** `POST /user-property` (`success: false` → TaxonomyFailureError). */
  async create(body: UserPropertyCreate, o?: CallOptions): Promise<void> {
    checkBody(body, ['user_property', ...PROPERTY_FIELDS], ['user_property']);
    await this.#c.call({ method: 'POST', resource: 'user-property', form: { ...body } }, o);
  }

  /** `GET /user-property[?showDeleted=true]`; hidden ones left out by the server. */
  async list(o: ShowDeletedOption = {}): Promise<UserPropertyRecord[]> {
    return this.#c.read({ method: 'GET', resource: 'user-property', ...showDeletedQuery(o) }, 'array', o);
  }

  /** `GET /user-property/:user_property[?showDeleted=true]` (not found: 404 ApiError). */
  async get(userProperty: string, o: ShowDeletedOption = {}): Promise<UserPropertyRecord> {
    const segments = [['user_property', requireString('user_property', userProperty)]] as const;
    return this.#c.read({ method: 'GET', resource: 'user-property', segments, ...showDeletedQuery(o) }, 'object', o);
  }

  /** `PUT /user-property/:user_property` (`success: false` → TaxonomyFailureError). */
  async update(userProperty: string, body: UserPropertyUpdate, o?: CallOptions): Promise<void> {
    requireString('user_property', userProperty);
    const keys = ['new_user_property_value', 'description', 'is_hidden'];
    const b = checkBody(body, keys, [], ['new_user_property_value']);
    anyField(b, keys);
    await this.#c.call({ method: 'PUT', resource: 'user-property', segments: [['user_property', userProperty]], form: { ...body } }, o);
  }

  /** `DELETE /user-property/:user_property`. */
  async delete(userProperty: string, o?: CallOptions): Promise<void> {
    await this.#c.call({ method: 'DELETE', resource: 'user-property', segments: [['user_property', requireString('user_property', userProperty)]] }, o);
  }

  /** `POST /user-property/:user_property/restore`. */
  async restore(userProperty: string, o?: CallOptions): Promise<void> {
    await this.#c.call({ method: 'POST', resource: 'user-property', segments: [['user_property', requireString('user_property', userProperty)]], suffix: 'restore' }, o);
  }
}

export interface GroupPropertyCreate extends PropertyFields {
  group_type: string;
  group_property: string;
}
export interface GroupPropertyUpdate extends PropertyFields {
  /** Leave out to update the shared property (updating an overridden one's classifications with it is a 409). */
  group_type?: string;
}
export interface GroupTypeOption extends CallOptions {
  /** Sent as the query parameter `group_type` (the spec does not say query or body for these reads). */
  groupType?: string;
}

/** The `group_type` query parameter, when the option names one. */
function groupTypeQuery(o: GroupTypeOption): { query?: { group_type: string } } {
  return o.groupType === undefined ? {} : { query: { group_type: requireString('group_type', o.groupType) } };
}

/** Group properties: create, read, update (delete and restore are not shown by the spec). */
export class TaxonomyGroupProperties {
  readonly #c: TaxonomyCaller;
  constructor(caller: TaxonomyCaller) {
    this.#c = caller;
  }

  /** `POST /group-property` (exists: 409 ApiError). */
  async create(body: GroupPropertyCreate, o?: CallOptions): Promise<void> {
    checkBody(body, ['group_type', 'group_property', ...PROPERTY_FIELDS], ['group_type', 'group_property']);
    await this.#c.call({ method: 'POST', resource: 'group-property', form: { ...body } }, o);
  }

  /** `GET /group-property[?group_type=]`. */
  async list(o: GroupTypeOption = {}): Promise<GroupPropertyRecord[]> {
    return this.#c.read({ method: 'GET', resource: 'group-property', ...groupTypeQuery(o) }, 'array', o);
  }

  /** `GET /group-property/:group_property[?group_type=]` (not found: 400 ApiError). */
  async get(groupProperty: string, o: GroupTypeOption = {}): Promise<GroupPropertyRecord> {
    const segments = [['group_property', requireString('group_property', groupProperty)]] as const;
    return this.#c.read({ method: 'GET', resource: 'group-property', segments, ...groupTypeQuery(o) }, 'object', o);
  }

  /** `PUT /group-property/:group_property` with the fields to change (and `group_type` for an override). */
  async update(groupProperty: string, body: GroupPropertyUpdate, o?: CallOptions): Promise<void> {
    requireString('group_property', groupProperty);
    const b = checkBody(body, ['group_type', ...PROPERTY_FIELDS], [], ['group_type']);
    anyField(b, PROPERTY_FIELDS);
    await this.#c.call({ method: 'PUT', resource: 'group-property', segments: [['group_property', groupProperty]], form: { ...body } }, o);
  }
}
