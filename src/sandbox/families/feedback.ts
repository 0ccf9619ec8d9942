/**
 * Feedback ingestion (spec document 3): `POST /api/1/ai-feedback/ingest`, HTTP Basic auth, JSON
 * `{source_id, items}` → `{ingested, failed, errors}`. Items and conversation parts are upserted by `unique_id`
 * within a source: the same data again changes nothing; an item re-sent with new parts gains those parts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody, sendApiError, sendJson } from '../http-util.js';
import { FEEDBACK } from '../spec-values.js';
import { isObject } from './body-checks.js';
import type { FamilyRoute } from './family-route.js';

const PATH = '/api/1/ai-feedback/ingest';
/** The spec's 5 MB payload limit and 1 to 100 items (spec-values.ts). */
const MAX_PAYLOAD_BYTES = FEEDBACK.maxPayloadBytes;
const MAX_ITEMS = FEEDBACK.maxItems;

export interface StoredFeedbackItem {
  unique_id: string;
  fields: Record<string, unknown>;
  /** Conversation parts by `unique_id` (a part without one gets a fresh id: it cannot be matched later). */
  parts: Map<string, Record<string, unknown>>;
}

export class FeedbackFamily implements FamilyRoute {
  readonly family = 'feedback';
  readonly #sources = new Map<string, Map<string, StoredFeedbackItem>>();
  #anonymous = 0;

  matches(path: string): boolean {
    return path === PATH;
  }

  /** The items stored for a source, in the order first ingested. */
  items(sourceId: string): StoredFeedbackItem[] {
    return [...(this.#sources.get(sourceId)?.values() ?? [])];
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST')
      return sendApiError(res, 405, 'method_not_allowed', 'only POST is allowed', { Allow: 'POST' });
    let text: string;
    try {
      text = await readBody(req, MAX_PAYLOAD_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLargeError)
        return sendApiError(res, 413, 'payload_too_large', `payload larger than ${MAX_PAYLOAD_BYTES} bytes`);
      throw err;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendApiError(res, 400, 'invalid_json', 'the body is not JSON');
    }
    if (!isObject(body) || typeof body.source_id !== 'string' || body.source_id === '') {
      return sendApiError(res, 400, 'invalid_request', 'source_id (a non-empty string) is required');
    }
    const items = body.items;
    if (!Array.isArray(items) || items.length < 1 || items.length > MAX_ITEMS) {
      return sendApiError(res, 400, 'invalid_request', `items must be an array of 1 to ${MAX_ITEMS} feedback items`);
    }
    let source = this.#sources.get(body.source_id);
    if (!source) this.#sources.set(body.source_id, (source = new Map()));
    let ingested = 0;
    const errors: Array<{ unique_id: string; error: string }> = [];
    for (const item of items) {
      const error = this.#upsert(source, item);
      if (error)
        errors.push({ unique_id: isObject(item) && typeof item.unique_id === 'string' ? item.unique_id : '', error });
      else ingested++;
    }
    sendJson(res, 200, { ingested, failed: errors.length, errors });
  }

  /** Stores one item; a message when it is refused (the per-item errors' wording is not shown: ours). */
  #upsert(source: Map<string, StoredFeedbackItem>, item: unknown): string | undefined {
    if (!isObject(item)) return 'an item must be an object';
    const parts = item.conversation_parts ?? [];
    if (!Array.isArray(parts) || !parts.every((p) => isObject(p) && typeof p.body === 'string' && p.body !== '')) {
      return 'conversation_parts must be objects with a non-empty body';
    }
    // "conversation_parts cannot be nested".
    if (parts.some((p) => (p as Record<string, unknown>).conversation_parts !== undefined)) {
      return 'conversation_parts cannot be nested: a part has conversation_parts of its own';
    }
    const id =
      typeof item.unique_id === 'string' && item.unique_id !== '' ? item.unique_id : `anonymous-${++this.#anonymous}`;
    const existing = source.get(id);
    if (!existing && typeof item.body !== 'string' && parts.length === 0)
      return 'a new item needs a body or conversation parts';
    const { conversation_parts: _parts, ...fields } = item;
    const stored = existing ?? { unique_id: id, fields: {}, parts: new Map() };
    stored.fields = { ...stored.fields, ...fields, unique_id: id };
    for (const p of parts as Array<Record<string, unknown>>) {
      const partId =
        typeof p.unique_id === 'string' && p.unique_id !== '' ? p.unique_id : `anonymous-${++this.#anonymous}`;
      stored.parts.set(partId, { ...p, unique_id: partId });
    }
    source.set(id, stored);
    return undefined;
  }
}
