/**
 * Taxonomy: event, user and group properties (`/event-property`, `/user-property`, `/group-property`).
 */
import type { CallOptions } from './call-options.js';
import { checkBodyFields, opt, req, type BodyField, type BodySchema } from './body-schema.js';
import { requireString } from './checks.js';
import { named, type TaxonomyCaller } from './taxonomy-call.js';
import type { EventPropertyRecord, GroupPropertyRecord, PropertyFields, UserPropertyRecord } from './taxonomy-types.js';
import { showDeletedQuery, type ShowDeletedOption } from './taxonomy-events.js';
import { ClientOf } from './client-of.js';

/** The property fields the spec lists for the records; sent in create and update bodies (wire types "not shown"). */
const PROPERTY_FIELDS: readonly BodyField[] = [
  opt('description', 'string'),
  opt('type', 'string'),
  opt('regex', 'string'),
  opt('enum_values', 'string'),
  opt('is_array_type', 'boolean'),
  opt('is_required', 'boolean'),
  opt('is_hidden', 'boolean'),
  opt('classifications', 'string[]'),
];
const PROPERTY_NAMES = PROPERTY_FIELDS.map((f) => f.name);
const object = (...fields: BodyField[]): BodySchema => ({ shape: 'object', fields });

/**
 * `POST /event-property`: "body `event_type`, `event_property`". Without `event_type` the property is a shared one
 * (the spec's reads and delete take `event_type` as optional, "shared or event-specific properties").
 */
export const EVENT_PROPERTY_CREATE_BODY = object(
  req('event_property', 'string'),
  opt('event_type', 'string'),
  ...PROPERTY_FIELDS,
);
/** `PUT /event-property/:event-property`: "body `event_type` and fields to change" (without it: the shared property). */
export const EVENT_PROPERTY_UPDATE_BODY: BodySchema = {
  ...object(opt('event_type', 'string'), ...PROPERTY_FIELDS),
  atLeastOneOf: PROPERTY_NAMES,
};
/** `POST /user-property`: "body `user_property`". */
export const USER_PROPERTY_CREATE_BODY = object(req('user_property', 'string'), ...PROPERTY_FIELDS);
/** `PUT /user-property/:user_property`: "body `new_user_property_value`, `description`, `is_hidden`". */
export const USER_PROPERTY_UPDATE_BODY: BodySchema = {
  ...object(opt('new_user_property_value', 'string'), opt('description', 'string'), opt('is_hidden', 'boolean')),
  atLeastOneOf: ['new_user_property_value', 'description', 'is_hidden'],
};
/**
 * `POST /group-property`: "body `group_type`, `group_property`". `group_type` is required here: a group property
 * belongs to a group type (an assumption, docs/CLIENTS.md).
 */
export const GROUP_PROPERTY_CREATE_BODY = object(
  req('group_property', 'string'),
  req('group_type', 'string'),
  ...PROPERTY_FIELDS,
);
/** `PUT /group-property/:group_property`: "body `group_type` and fields to change" (without it: the shared property). */
export const GROUP_PROPERTY_UPDATE_BODY: BodySchema = {
  ...object(opt('group_type', 'string'), ...PROPERTY_FIELDS),
  atLeastOneOf: PROPERTY_NAMES,
};

/** Checks a body against its schema; an optional name given must be non-empty. */
function checkBody(body: unknown, schema: BodySchema, optionalNames: readonly string[] = []): Record<string, unknown> {
  const b = checkBodyFields('body', body, schema);
  for (const k of optionalNames) if (b[k] !== undefined) requireString(k, b[k]);
  return b;
}

export interface EventPropertyCreate extends PropertyFields {
  /** Leave out for a shared property (not tied to one event type). */
  event_type?: string;
  event_property: string;
}
export interface EventPropertyUpdate extends PropertyFields {
  /** The event type whose property is changed; leave out for the shared property. */
  event_type?: string;
}
export interface EventTypeOption extends CallOptions {
  /** Sent as the form field `event_type` (the spec puts it in the body, also on GET and DELETE). */
  eventType?: string;
}

/** The `event_type` form field, when the option names one. */
function eventTypeForm(o: EventTypeOption): { form?: { event_type: string } } {
  return o.eventType === undefined ? {} : { form: { event_type: requireString('event_type', o.eventType) } };
}

export class TaxonomyEventProperties extends ClientOf<TaxonomyCaller> {
  /** `POST /event-property` (exists, even deleted: 409 ApiError — call restore instead). */
  async create(body: EventPropertyCreate, o?: CallOptions): Promise<void> {
    checkBody(body, EVENT_PROPERTY_CREATE_BODY, ['event_type']);
    await this.via.call({ method: 'POST', resource: 'event-property', form: { ...body } }, o);
  }

  /** `GET /event-property` (+ body `event_type`): shared or event-specific properties, deleted ones left out. */
  async list(o: EventTypeOption = {}): Promise<EventPropertyRecord[]> {
    return this.via.read({ method: 'GET', resource: 'event-property', ...eventTypeForm(o) }, 'array', o);
  }

  /** `GET /event-property?event_property=<name>` (+ body `event_type`); not found: 400 ApiError. */
  async get(eventProperty: string, o: EventTypeOption = {}): Promise<EventPropertyRecord> {
    const query = { event_property: requireString('event_property', eventProperty) };
    return this.via.read({ method: 'GET', resource: 'event-property', query, ...eventTypeForm(o) }, 'object', o);
  }

  /** `PUT /event-property/:event-property` with the fields to change, and `event_type` for an event's own (not in schema: 409). */
  async update(eventProperty: string, body: EventPropertyUpdate, o?: CallOptions): Promise<void> {
    const r = named('PUT', 'event-property', 'event_property', eventProperty);
    checkBody(body, EVENT_PROPERTY_UPDATE_BODY, ['event_type']);
    await this.via.call({ ...r, form: { ...body } }, o);
  }

  /** `DELETE /event-property/:event-property`: with `eventType` that event's property, without it the global one. */
  async delete(eventProperty: string, o: EventTypeOption = {}): Promise<void> {
    const r = named('DELETE', 'event-property', 'event_property', eventProperty);
    await this.via.call({ ...r, ...eventTypeForm(o) }, o);
  }

  /** `POST /event-property/:event-property/restore` (answers 201). */
  async restore(eventProperty: string, o?: CallOptions): Promise<void> {
    await this.via.call(named('POST', 'event-property', 'event_property', eventProperty, { suffix: 'restore' }), o);
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

export class TaxonomyUserProperties extends ClientOf<TaxonomyCaller> {
  /** `POST /user-property` (`success: false` → TaxonomyFailureError). */
  async create(body: UserPropertyCreate, o?: CallOptions): Promise<void> {
    checkBody(body, USER_PROPERTY_CREATE_BODY);
    await this.via.call({ method: 'POST', resource: 'user-property', form: { ...body } }, o);
  }

  /** `GET /user-property[?showDeleted=true]`; hidden ones left out by the server. */
  async list(o: ShowDeletedOption = {}): Promise<UserPropertyRecord[]> {
    return this.via.read({ method: 'GET', resource: 'user-property', ...showDeletedQuery(o) }, 'array', o);
  }

  /** `GET /user-property/:user_property[?showDeleted=true]` (not found: 404 ApiError). */
  async get(userProperty: string, o: ShowDeletedOption = {}): Promise<UserPropertyRecord> {
    const r = named('GET', 'user-property', 'user_property', userProperty);
    return this.via.read({ ...r, ...showDeletedQuery(o) }, 'object', o);
  }

  /** `PUT /user-property/:user_property` (`success: false` → TaxonomyFailureError). */
  async update(userProperty: string, body: UserPropertyUpdate, o?: CallOptions): Promise<void> {
    const r = named('PUT', 'user-property', 'user_property', userProperty);
    checkBody(body, USER_PROPERTY_UPDATE_BODY, ['new_user_property_value']);
    await this.via.call({ ...r, form: { ...body } }, o);
  }

  /** `DELETE /user-property/:user_property`. */
  async delete(userProperty: string, o?: CallOptions): Promise<void> {
    await this.via.call(named('DELETE', 'user-property', 'user_property', userProperty), o);
  }

  /** `POST /user-property/:user_property/restore`. */
  async restore(userProperty: string, o?: CallOptions): Promise<void> {
    await this.via.call(named('POST', 'user-property', 'user_property', userProperty, { suffix: 'restore' }), o);
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
export class TaxonomyGroupProperties extends ClientOf<TaxonomyCaller> {
  /** `POST /group-property` (exists: 409 ApiError). */
  async create(body: GroupPropertyCreate, o?: CallOptions): Promise<void> {
    checkBody(body, GROUP_PROPERTY_CREATE_BODY);
    await this.via.call({ method: 'POST', resource: 'group-property', form: { ...body } }, o);
  }

  /** `GET /group-property[?group_type=]`. */
  async list(o: GroupTypeOption = {}): Promise<GroupPropertyRecord[]> {
    return this.via.read({ method: 'GET', resource: 'group-property', ...groupTypeQuery(o) }, 'array', o);
  }

  /** `GET /group-property/:group_property[?group_type=]` (not found: 400 ApiError). */
  async get(groupProperty: string, o: GroupTypeOption = {}): Promise<GroupPropertyRecord> {
    const r = named('GET', 'group-property', 'group_property', groupProperty);
    return this.via.read({ ...r, ...groupTypeQuery(o) }, 'object', o);
  }

  /** `PUT /group-property/:group_property` with the fields to change (and `group_type` for an override). */
  async update(groupProperty: string, body: GroupPropertyUpdate, o?: CallOptions): Promise<void> {
    const r = named('PUT', 'group-property', 'group_property', groupProperty);
    checkBody(body, GROUP_PROPERTY_UPDATE_BODY, ['group_type']);
    await this.via.call({ ...r, form: { ...body } }, o);
  }
}
