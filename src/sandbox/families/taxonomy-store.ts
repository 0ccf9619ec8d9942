/**
 * The taxonomy (project schema) of one sandbox, in memory: categories, event types, event properties, user properties
 * and group properties, with the spec's rules (document 2): deleting needs the item planned in the schema (here: any
 * item the store holds), deleted event types and user properties are listed only with `showDeleted=true`, a create of
 * an item that exists (even deleted) fails, restore brings a deleted item back, `is_hidden` and the visibility flags
 * can be set only on ingested items. The store starts with a few ingested items (INGESTED, taxonomy-records.ts) so that those can be
 * exercised. Every failure is a TaxonomyFailure with the status the spec gives for that call.
 */
import { fail, type PropertyFieldValues } from './taxonomy-form.js';
import {
  applyFields,
  baseFields,
  copy,
  GROUP_PREFIX,
  held,
  hiddenOnlyIfIngested,
  INGESTED,
  key,
  newEventType,
  prefixed,
  USER_PREFIX,
  VISIBILITY_FLAGS,
  type CategoryRecord,
  type EventPropertyRecord,
  type EventTypeRecord,
  type GroupPropertyRecord,
  type Held,
  type UserPropertyRecord,
  type VisibilityFlag,
} from './taxonomy-records.js';

export class TaxonomyStore {
  readonly #categories = new Map<number, CategoryRecord>();
  #nextCategoryId = 1;
  readonly #eventTypes = new Map<string, Held<EventTypeRecord>>();
  /** Key: event type (`''`: shared), NUL, property name. */
  readonly #eventProperties = new Map<string, Held<EventPropertyRecord>>();
  readonly #userProperties = new Map<string, Held<UserPropertyRecord>>();
  /** Key: group type, NUL, property name. */
  readonly #groupProperties = new Map<string, Held<GroupPropertyRecord>>();

  constructor() {
    for (const e of INGESTED.eventTypes) this.#eventTypes.set(e, held(newEventType(e, null, undefined), true));
    for (const p of INGESTED.eventProperties) {
      this.#eventProperties.set(
        key(p.event_type, p.event_property),
        held(
          {
            event_property: p.event_property,
            event_type: p.event_type,
            is_required: false,
            ...baseFields({ type: 'string' }),
          },
          true,
        ),
      );
    }
    for (const u of INGESTED.userProperties)
      this.#userProperties.set(u, held({ user_property: u, deleted: false, ...baseFields({ type: 'string' }) }, true));
    for (const g of INGESTED.groupProperties) {
      this.#groupProperties.set(
        key(g.group_type, g.group_property),
        held({ ...g, ...baseFields({ type: 'string' }) }, true),
      );
    }
  }

  // ---- categories ----

  createCategory(name: string): void {
    if (this.#categoryNamed(name)) fail(200, `category ${JSON.stringify(name)} already exists`);
    const id = this.#nextCategoryId++;
    this.#categories.set(id, { id, name });
  }

  categories(): CategoryRecord[] {
    return [...this.#categories.values()].map((c) => ({ ...c }));
  }

  category(name: string): CategoryRecord {
    const c = this.#categoryNamed(name);
    return c ? { ...c } : fail(400, `category ${JSON.stringify(name)} not found`);
  }

  renameCategory(id: number, name: string): void {
    const c = this.#categories.get(id) ?? fail(409, `category id ${id} does not exist`);
    const other = this.#categoryNamed(name);
    if (other && other.id !== id) fail(409, `category ${JSON.stringify(name)} already exists`);
    const old = c.name;
    c.name = name;
    for (const e of this.#eventTypes.values()) if (e.record.category?.name === old) e.record.category = { name };
  }

  deleteCategory(id: number): void {
    const c = this.#categories.get(id) ?? fail(409, `category id ${id} does not exist`);
    this.#categories.delete(id);
    for (const e of this.#eventTypes.values()) if (e.record.category?.name === c.name) e.record.category = null;
  }

  #categoryNamed(name: string): CategoryRecord | undefined {
    return [...this.#categories.values()].find((c) => c.name === name);
  }

  #categoryRef(name: string | undefined): { name: string } | null | undefined {
    if (name === undefined) return undefined;
    if (!this.#categoryNamed(name)) fail(409, `category ${JSON.stringify(name)} does not exist; create it first`);
    return { name };
  }

  // ---- event types ----

  createEventType(
    name: string,
    category: string | undefined,
    description: string | undefined,
    flags: Partial<Record<VisibilityFlag, boolean>>,
  ): void {
    mustBeNew(this.#eventTypes.get(name), 409, `event type ${JSON.stringify(name)}`);
    if (Object.keys(flags).length > 0)
      fail(
        409,
        `the is_hidden_from_* flags can be set only on ingested event types; ${JSON.stringify(name)} would be planned only`,
      );
    this.#eventTypes.set(name, held(newEventType(name, this.#categoryRef(category) ?? null, description)));
  }

  /** Listed: not hidden (every visibility flag false), and not deleted unless `showDeleted`. */
  eventTypes(showDeleted: boolean): EventTypeRecord[] {
    return [...this.#eventTypes.values()]
      .filter((e) => (showDeleted || !e.deleted) && VISIBILITY_FLAGS.every((f) => !e.record[f]))
      .map((e) => copy(e.record));
  }

  eventType(name: string): EventTypeRecord {
    const e = this.#eventTypes.get(name);
    return e && !e.deleted ? copy(e.record) : fail(400, `event type ${JSON.stringify(name)} not found`);
  }

  updateEventType(
    name: string,
    category: string | undefined,
    displayName: string | undefined,
    flags: Partial<Record<VisibilityFlag, boolean>>,
  ): void {
    const e = this.#eventTypes.get(name);
    if (!e || e.deleted) fail(409, `event type ${JSON.stringify(name)} is not in the schema`);
    if (Object.keys(flags).length > 0 && !e.ingested)
      fail(
        409,
        `the is_hidden_from_* flags can be set only on ingested event types; ${JSON.stringify(name)} is planned only`,
      );
    const ref = this.#categoryRef(category);
    if (ref !== undefined) e.record.category = ref;
    if (displayName !== undefined) e.record.display_name = displayName;
    Object.assign(e.record, flags);
  }

  deleteEventType(name: string): void {
    const e = this.#eventTypes.get(name);
    if (!e || e.deleted) fail(400, `event type ${JSON.stringify(name)} not found in the schema`);
    e.deleted = true;
    e.record.is_active = false;
  }

  restoreEventType(name: string): void {
    const e = this.#eventTypes.get(name);
    if (!e?.deleted) fail(400, `event type ${JSON.stringify(name)} is not deleted`);
    e.deleted = false;
    e.record.is_active = true;
  }

  // ---- event properties ----

  createEventProperty(eventType: string, name: string, f: PropertyFieldValues): void {
    if (eventType !== '' && !this.#eventTypes.get(eventType))
      fail(409, `event type ${JSON.stringify(eventType)} is not in the schema`);
    mustBeNew(this.#eventProperties.get(key(eventType, name)), 409, `event property ${JSON.stringify(name)}`);
    hiddenOnlyIfIngested({ ingested: false }, f, JSON.stringify(name));
    this.#eventProperties.set(
      key(eventType, name),
      held({ event_property: name, event_type: eventType, is_required: f.is_required ?? false, ...baseFields(f) }),
    );
  }

  /** Shared properties (no event type), or those of one event type; deleted ones left out. */
  eventProperties(eventType: string): EventPropertyRecord[] {
    return [...this.#eventProperties.values()]
      .filter((p) => !p.deleted && p.record.event_type === eventType)
      .map((p) => copy(p.record));
  }

  eventProperty(eventType: string, name: string): EventPropertyRecord {
    const p = this.#eventProperties.get(key(eventType, name));
    return p && !p.deleted ? copy(p.record) : fail(400, `event property ${JSON.stringify(name)} not found`);
  }

  updateEventProperty(eventType: string, name: string, f: PropertyFieldValues): void {
    const p = this.#eventProperties.get(key(eventType, name));
    if (!p || p.deleted) fail(409, `event property ${JSON.stringify(name)} is not in the schema`);
    hiddenOnlyIfIngested(p, f, JSON.stringify(name));
    applyFields(p.record, f);
  }

  deleteEventProperty(eventType: string, name: string): void {
    const p = this.#eventProperties.get(key(eventType, name));
    if (!p || p.deleted) fail(400, `event property ${JSON.stringify(name)} not found in the schema`);
    p.deleted = true;
  }

  /** Restores the deleted property of that event type, or (none given) every deleted property of that name. */
  restoreEventProperty(eventType: string | undefined, name: string): void {
    const found = [...this.#eventProperties.values()].filter(
      (p) =>
        p.deleted && p.record.event_property === name && (eventType === undefined || p.record.event_type === eventType),
    );
    if (found.length === 0) fail(400, `event property ${JSON.stringify(name)} is not deleted`);
    for (const p of found) p.deleted = false;
  }

  // ---- user properties ----

  createUserProperty(name: string, f: PropertyFieldValues): void {
    const n = prefixed(USER_PREFIX, name);
    mustBeNew(this.#userProperties.get(n), 200, `user property ${JSON.stringify(n)}`);
    if (f.is_hidden !== undefined)
      fail(200, `is_hidden can be set only on ingested user properties; ${JSON.stringify(n)} would be planned only`);
    this.#userProperties.set(n, held({ user_property: n, deleted: false, ...baseFields(f) }));
  }

  /** Not hidden, and not deleted unless `showDeleted`. */
  userProperties(showDeleted: boolean): UserPropertyRecord[] {
    return [...this.#userProperties.values()]
      .filter((u) => (showDeleted || !u.deleted) && !u.record.is_hidden)
      .map((u) => this.#user(u));
  }

  userProperty(name: string, showDeleted: boolean): UserPropertyRecord {
    const u = this.#userProperties.get(prefixed(USER_PREFIX, name));
    return u && (showDeleted || !u.deleted)
      ? this.#user(u)
      : fail(404, `user property ${JSON.stringify(name)} not found`);
  }

  #user(u: Held<UserPropertyRecord>): UserPropertyRecord {
    return { ...copy(u.record), deleted: u.deleted };
  }

  /** Fails with `success: false` (status 200), as the spec shows for this call. */
  updateUserProperty(
    name: string,
    newName: string | undefined,
    description: string | undefined,
    isHidden: boolean | undefined,
  ): void {
    const n = prefixed(USER_PREFIX, name);
    const u = this.#userProperties.get(n);
    if (!u || u.deleted) fail(200, `user property ${JSON.stringify(name)} is not in the schema`);
    if (isHidden !== undefined && !u.ingested)
      fail(200, `is_hidden can be set only on ingested user properties; ${JSON.stringify(n)} is planned only`);
    if (newName !== undefined) {
      const renamed = prefixed(USER_PREFIX, newName);
      if (renamed !== n && this.#userProperties.has(renamed))
        fail(200, `user property ${JSON.stringify(renamed)} already exists`);
      this.#userProperties.delete(n);
      u.record.user_property = renamed;
      this.#userProperties.set(renamed, u);
    }
    if (description !== undefined) u.record.description = description;
    if (isHidden !== undefined) u.record.is_hidden = isHidden;
  }

  deleteUserProperty(name: string): void {
    const u = this.#userProperties.get(prefixed(USER_PREFIX, name));
    if (!u || u.deleted) fail(400, `user property ${JSON.stringify(name)} not found in the schema`);
    u.deleted = true;
  }

  restoreUserProperty(name: string): void {
    const u = this.#userProperties.get(prefixed(USER_PREFIX, name));
    if (!u?.deleted) fail(400, `user property ${JSON.stringify(name)} is not deleted`);
    u.deleted = false;
  }

  // ---- group properties ----

  createGroupProperty(groupType: string, name: string, f: PropertyFieldValues): void {
    const n = prefixed(GROUP_PREFIX, name);
    if (this.#groupProperties.has(key(groupType, n)))
      fail(409, `group property ${JSON.stringify(n)} of group type ${JSON.stringify(groupType)} already exists`);
    hiddenOnlyIfIngested({ ingested: false }, f, JSON.stringify(n));
    this.#groupProperties.set(key(groupType, n), held({ group_type: groupType, group_property: n, ...baseFields(f) }));
  }

  groupProperties(groupType: string | undefined): GroupPropertyRecord[] {
    return [...this.#groupProperties.values()]
      .filter((g) => groupType === undefined || g.record.group_type === groupType)
      .map((g) => copy(g.record));
  }

  /** Of the group type given, or (none given) the first group type that has it. */
  groupProperty(groupType: string | undefined, name: string): GroupPropertyRecord {
    const g = this.#groupsNamed(name).find((x) => groupType === undefined || x.record.group_type === groupType);
    return g ? copy(g.record) : fail(400, `group property ${JSON.stringify(name)} not found`);
  }

  /**
   * With a group type: that group type's property (its classifications may not be changed this way when the
   * property is overridden, i.e. held by more than one group type: 409). Without: the shared property, every
   * group type's.
   */
  updateGroupProperty(groupType: string | undefined, name: string, f: PropertyFieldValues): void {
    const all = this.#groupsNamed(name);
    const targets = all.filter((g) => groupType === undefined || g.record.group_type === groupType);
    if (targets.length === 0) fail(409, `group property ${JSON.stringify(name)} is not in the schema`);
    if (groupType !== undefined && f.classifications !== undefined && all.length > 1) {
      fail(
        409,
        `group property ${JSON.stringify(name)} is overridden; update its classifications without group_type (the shared property)`,
      );
    }
    for (const g of targets) hiddenOnlyIfIngested(g, f, JSON.stringify(name));
    for (const g of targets) applyFields(g.record, f);
  }

  #groupsNamed(name: string): Held<GroupPropertyRecord>[] {
    const n = prefixed(GROUP_PREFIX, name);
    return [...this.#groupProperties.values()].filter((g) => g.record.group_property === n);
  }
}

/** Fails with `status` when `existing` is held: a create of an item that exists, even deleted. */
function mustBeNew(existing: Held<unknown> | undefined, status: number, what: string): void {
  if (existing) fail(status, `${what} already exists${existing.deleted ? ' (deleted: restore it instead)' : ''}`);
}
