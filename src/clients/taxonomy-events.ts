/**
 * Taxonomy: event categories and event types (`/api/2/taxonomy/category`, `/api/2/taxonomy/event`).
 */
import { checkBodyFields, opt, req, type BodySchema } from './body-schema.js';
import type { CallOptions } from './call-options.js';
import { requireInteger, requireString } from './checks.js';
import { named, type TaxonomyCaller } from './taxonomy-call.js';
import {
  VISIBILITY_FLAGS,
  type EventCategory,
  type EventTypeRecord,
  type EventVisibilityFlags,
} from './taxonomy-types.js';
import { ClientOf } from './client-of.js';

const FLAG_FIELDS = VISIBILITY_FLAGS.map((f) => opt(f, 'boolean'));

/** `POST /event`: "body `event_type`, `category`, `description`, and the four `is_hidden_from_*` flags". */
export const EVENT_TYPE_CREATE_BODY: BodySchema = {
  shape: 'object',
  fields: [req('event_type', 'string'), opt('category', 'string'), opt('description', 'string'), ...FLAG_FIELDS],
};
/** `PUT /event/:event_type`: "body `category`, `display_name`, the four `is_hidden_from_*` flags". */
export const EVENT_TYPE_UPDATE_BODY: BodySchema = {
  shape: 'object',
  fields: [opt('category', 'string'), opt('display_name', 'string'), ...FLAG_FIELDS],
};

export class TaxonomyCategories extends ClientOf<TaxonomyCaller> {
  /** `POST /category` with `category_name`. A 200 with `success: false` is TaxonomyFailureError. */
  async create(categoryName: string, o?: CallOptions): Promise<void> {
    requireString('category_name', categoryName);
    await this.via.call({ method: 'POST', resource: 'category', form: { category_name: categoryName } }, o);
  }

  /** `GET /category`. */
  async list(o?: CallOptions): Promise<EventCategory[]> {
    return this.via.read({ method: 'GET', resource: 'category' }, 'array', o);
  }

  /** `GET /category/:category_name` (not found: 400 ApiError). */
  async get(categoryName: string, o?: CallOptions): Promise<EventCategory> {
    return this.via.read(named('GET', 'category', 'category_name', categoryName), 'object', o);
  }

  /** `PUT /category/:category_id` with the new `category_name` (unknown id: 409 ApiError). */
  async rename(categoryId: number, newName: string, o?: CallOptions): Promise<void> {
    requireInteger('category_id', categoryId);
    requireString('category_name', newName);
    await this.via.call(
      { method: 'PUT', resource: 'category', item: ['category_id', categoryId], form: { category_name: newName } },
      o,
    );
  }

  /** `DELETE /category/:category_id` (unknown id: 409 ApiError). */
  async delete(categoryId: number, o?: CallOptions): Promise<void> {
    requireInteger('category_id', categoryId);
    await this.via.call({ method: 'DELETE', resource: 'category', item: ['category_id', categoryId] }, o);
  }
}

export interface EventTypeCreate extends EventVisibilityFlags {
  event_type: string;
  /** Category name. */
  category?: string;
  description?: string;
}

export interface EventTypeUpdate extends EventVisibilityFlags {
  category?: string;
  display_name?: string;
}

export interface ShowDeletedOption extends CallOptions {
  /** Sends `showDeleted=true`: deleted items are listed too. */
  showDeleted?: boolean;
}

/** The `showDeleted=true` query parameter, when the option asks for deleted items. */
export function showDeletedQuery(o: ShowDeletedOption): { query?: { showDeleted: true } } {
  return o.showDeleted ? { query: { showDeleted: true } } : {};
}

export class TaxonomyEventTypes extends ClientOf<TaxonomyCaller> {
  /** `POST /event` (already exists, even deleted: 409 ApiError — restore it instead). */
  async create(body: EventTypeCreate, o?: CallOptions): Promise<void> {
    checkBodyFields('body', body, EVENT_TYPE_CREATE_BODY);
    await this.via.call({ method: 'POST', resource: 'event', form: { ...body } }, o);
  }

  /** `GET /event[?showDeleted=true]`; hidden events are left out by the server. */
  async list(o: ShowDeletedOption = {}): Promise<EventTypeRecord[]> {
    return this.via.read({ method: 'GET', resource: 'event', ...showDeletedQuery(o) }, 'array', o);
  }

  /** `GET /event/:event_type` (not found: 400 ApiError). */
  async get(eventType: string, o?: CallOptions): Promise<EventTypeRecord> {
    return this.via.read(named('GET', 'event', 'event_type', eventType), 'object', o);
  }

  /** `PUT /event/:event_type` (not in the schema: 409 ApiError). */
  async update(eventType: string, body: EventTypeUpdate, o?: CallOptions): Promise<void> {
    const r = named('PUT', 'event', 'event_type', eventType);
    checkBodyFields('body', body, EVENT_TYPE_UPDATE_BODY);
    await this.via.call({ ...r, form: { ...body } }, o);
  }

  /** `DELETE /event/:event_type` (must be planned in the schema first). */
  async delete(eventType: string, o?: CallOptions): Promise<void> {
    await this.via.call(named('DELETE', 'event', 'event_type', eventType), o);
  }

  /** `POST /event/:event_type/restore`. */
  async restore(eventType: string, o?: CallOptions): Promise<void> {
    await this.via.call(named('POST', 'event', 'event_type', eventType, { suffix: 'restore' }), o);
  }
}
