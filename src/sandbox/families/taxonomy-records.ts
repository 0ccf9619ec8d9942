/**
 * The records of the sandbox's taxonomy (spec document 2, "Taxonomy records") as the store holds them, and the rules
 * shared by every kind: the `gp:` / `grp:` prefixes, property defaults, which fields an update may set.
 */
import { fail, type PropertyFieldValues } from './taxonomy-form.js';

export interface CategoryRecord {
  id: number;
  name: string;
}

const VISIBILITY = [
  'is_hidden_from_dropdowns',
  'is_hidden_from_persona_results',
  'is_hidden_from_pathfinder',
  'is_hidden_from_timeline',
] as const;
export type VisibilityFlag = (typeof VISIBILITY)[number];
export const VISIBILITY_FLAGS: readonly VisibilityFlag[] = VISIBILITY;

export interface EventTypeRecord extends Record<VisibilityFlag, boolean> {
  event_type: string;
  category: { name: string } | null;
  description: string | null;
  display_name: string | null;
  is_active: boolean;
  tags: string[];
  owner: string | null;
}

export interface PropertyBase {
  description: string | null;
  type: string;
  regex: string | null;
  enum_values: string | null;
  is_array_type: boolean;
  is_hidden: boolean;
  classifications: string[];
}
export interface EventPropertyRecord extends PropertyBase {
  event_property: string;
  /** `''` for a shared (global) property. */
  event_type: string;
  is_required: boolean;
}
export interface UserPropertyRecord extends PropertyBase {
  user_property: string;
  deleted: boolean;
}
export interface GroupPropertyRecord extends PropertyBase {
  group_type: string;
  group_property: string;
}

/** A record and what the store knows about it besides. */
export interface Held<R> {
  record: R;
  deleted: boolean;
  /** Seen in ingested data (not only planned): `is_hidden` and the visibility flags may be set. */
  ingested: boolean;
}

/** A record the store starts holding: not deleted; `ingested` for the items of INGESTED. */
export function held<R>(record: R, ingested = false): Held<R> {
  return { record, deleted: false, ingested };
}

/** Custom user properties carry `gp:`, group properties `grp:`; a name may be given with or without it. */
export const USER_PREFIX = 'gp:';
export const GROUP_PREFIX = 'grp:';
export function prefixed(prefix: string, name: string): string {
  return name.startsWith(prefix) ? name : prefix + name;
}

export function baseFields(f: PropertyFieldValues): PropertyBase {
  return {
    description: f.description ?? null,
    type: f.type ?? 'any',
    regex: f.regex ?? null,
    enum_values: f.enum_values ?? null,
    is_array_type: f.is_array_type ?? false,
    is_hidden: f.is_hidden ?? false,
    classifications: f.classifications ?? [],
  };
}

/** Copies the given fields onto a record (only those the record holds). */
export function applyFields<R extends PropertyBase>(r: R, f: PropertyFieldValues): void {
  for (const [k, v] of Object.entries(f)) if (k in r) (r as Record<string, unknown>)[k] = v;
}

export function hiddenOnlyIfIngested(item: { ingested: boolean }, f: { is_hidden?: boolean }, what: string): void {
  if (f.is_hidden !== undefined && !item.ingested)
    fail(409, `is_hidden can be set only on ingested properties; ${what} is planned only`);
}

/** The items the store starts with, as if ingested from tracked data. */
export const INGESTED = {
  eventTypes: ['Page Viewed', 'Sign Up'],
  eventProperties: [{ event_type: 'Page Viewed', event_property: 'page_url' }],
  userProperties: ['gp:plan'],
  groupProperties: [{ group_type: 'company', group_property: 'grp:industry' }],
} as const;

export function key(scope: string, name: string): string {
  return `${scope}\u0000${name}`;
}

export function copy<T extends object>(r: T): T {
  return structuredClone(r);
}

export function newEventType(
  name: string,
  category: { name: string } | null,
  description: string | undefined,
): EventTypeRecord {
  return {
    event_type: name,
    category,
    description: description ?? null,
    display_name: null,
    is_active: true,
    is_hidden_from_dropdowns: false,
    is_hidden_from_persona_results: false,
    is_hidden_from_pathfinder: false,
    is_hidden_from_timeline: false,
    tags: [],
    owner: null,
  };
}
