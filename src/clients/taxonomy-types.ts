/**
 * Records and request fields of the taxonomy API (spec document 2). Records are open: fields beyond the listed
 * ones are kept as received.
 */
import { HttpClientError } from '../http/errors.js';

export interface EventCategory {
  id: number;
  name: string;
  [field: string]: unknown;
}

/** `string`, `boolean`, `any`, `null` are the values seen; the complete set is not shown. */
export type PropertyType = 'string' | 'boolean' | 'any' | 'null' | (string & {});

export interface EventTypeRecord extends Required<EventVisibilityFlags> {
  event_type: string;
  category: { name: string; [field: string]: unknown } | null;
  description: string | null;
  display_name: string | null;
  is_active: boolean;
  tags: unknown[];
  owner: string | null;
  [field: string]: unknown;
}

/** The fields every kind of property record has. */
interface PropertyRecord {
  description: string | null;
  type: PropertyType;
  regex: string | null;
  /** Type not shown by the spec. */
  enum_values: unknown;
  is_array_type: boolean;
  is_hidden: boolean;
  classifications: string[];
  [field: string]: unknown;
}

export interface EventPropertyRecord extends PropertyRecord {
  event_property: string;
  event_type: string;
  is_required: boolean;
}

export interface UserPropertyRecord extends PropertyRecord {
  /** Custom user properties carry the prefix `gp:`. */
  user_property: string;
  deleted: boolean;
}

export interface GroupPropertyRecord extends PropertyRecord {
  group_type: string;
  /** Group properties carry the prefix `grp:`. */
  group_property: string;
}

/** The four visibility flags; settable only on ingested event types. */
export const VISIBILITY_FLAGS = [
  'is_hidden_from_dropdowns',
  'is_hidden_from_persona_results',
  'is_hidden_from_pathfinder',
  'is_hidden_from_timeline',
] as const;
export type EventVisibilityFlags = Partial<Record<(typeof VISIBILITY_FLAGS)[number], boolean>>;

/**
 * Property fields a create or update may carry. Which are accepted by which call, and their wire types, are not
 * shown beyond the names; `enum_values` is sent as given, `classifications` comma-joined (assumed).
 */
export interface PropertyFields {
  description?: string;
  type?: PropertyType;
  regex?: string;
  /** Allowed values, as one string (sent as given). */
  enum_values?: string;
  is_array_type?: boolean;
  is_required?: boolean;
  /** Only on ingested properties. */
  is_hidden?: boolean;
  classifications?: readonly string[];
}

/** A taxonomy call answered `success: false` (with a 2xx status, e.g. create category). */
export class TaxonomyFailureError extends HttpClientError {
  readonly method: string;
  readonly path: string;
  declare readonly status: number;
  /** `errors[].message` of the body, when given. */
  readonly messages: string[];
  /** The same messages, under the name ApiError uses. */
  readonly serverMessages: readonly string[];
  constructor(method: string, path: string, status: number, messages: string[]) {
    super(
      `Taxonomy call ${method} ${path} answered success: false (HTTP ${status})${messages.length ? `: ${messages.join('; ')}` : ''}`,
      'TAXONOMY_FAILURE',
      { status },
    );
    this.method = method;
    this.path = path;
    this.messages = messages;
    this.serverMessages = messages;
  }
}
