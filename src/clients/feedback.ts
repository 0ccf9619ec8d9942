/**
 * Feedback ingestion (spec document 3): `POST {feedback_url}/api/1/ai-feedback/ingest`, HTTP Basic auth,
 * `Content-Type: application/json`, family `feedback`. Items and parts are upserted by `unique_id` within a
 * source, so a request whose items and parts all carry a `unique_id` is safe to resend and is retried.
 */
import type { Transport } from '../http/transport.js';
import { HttpClientError, ValidationError } from '../http/errors.js';
import { checkBodyFields, opt, type BodySchema } from './body-schema.js';
import { callSpec, type CallOptions } from './call-options.js';
import { isPlainObject, requireArray, requireIsoTimestamp, requireMaxBytes, requireString } from './checks.js';
import { jsonObject, MalformedResponseError } from './response.js';
import { FEEDBACK_SPEC } from '../util/spec-constants.js';
import { ClientOf } from './client-of.js';

/** 1 to 100 items; the whole JSON payload at most 5 MB (src/util/spec-constants.ts). */
export const FEEDBACK_LIMITS = FEEDBACK_SPEC;

export const FEEDBACK_PATH = '/api/1/ai-feedback/ingest';

interface FeedbackFields {
  /** Deduplication key within a source. */
  unique_id?: string;
  author?: string;
  user_id?: string;
  email?: string;
  url?: string;
  /** ISO 8601 timestamp. */
  created_at?: string;
}

/** A conversation part: `body` required (≥ 1 character); parts cannot be nested. */
export interface ConversationPart extends FeedbackFields {
  body: string;
}

/**
 * A feedback item. Which fields are required is not shown by the spec: omit `body` for call transcripts (each
 * speaker turn a part) and when appending parts to an existing item (its `unique_id` and the new parts only).
 */
export interface FeedbackItem extends FeedbackFields {
  body?: string;
  conversation_parts?: ConversationPart[];
}

export interface FeedbackIngestResult {
  ingested: number;
  failed: number;
  /** One entry per failed item; empty when none fail. */
  errors: { unique_id: string; error: string }[];
}

/**
 * A feedback item ("Feedback item" table): every field optional ("which item fields are required … not shown"),
 * other fields sent as given. A conversation part has the same fields, `body` required (checked below).
 */
export const FEEDBACK_ITEM_BODY: BodySchema = {
  shape: 'array',
  open: true,
  items: { min: FEEDBACK_SPEC.minItems, max: FEEDBACK_SPEC.maxItems },
  fields: [
    opt('unique_id', 'string'),
    opt('body', 'string'),
    opt('author', 'string'),
    opt('user_id', 'string'),
    opt('email', 'string'),
    opt('url', 'string'),
    opt('created_at', 'string'),
    opt('conversation_parts', 'array'),
  ],
};

function fields(at: string, o: unknown): Record<string, unknown> {
  const checked = checkBodyFields(at, o, FEEDBACK_ITEM_BODY);
  if (checked.created_at !== undefined) requireIsoTimestamp(`${at}.created_at`, checked.created_at);
  return checked;
}

/**
 * A feedback ingest answered 200 with `failed > 0` ("A partial failure returns the counts and one error entry per
 * failed item"), when the caller asked for it to be an error (`IngestOptions.partialFailure: 'throw'`). The
 * answer is in `result`; `serverMessages` holds each failed item's `unique_id: error`.
 */
export class FeedbackPartialFailureError extends HttpClientError {
  declare readonly status: number;
  readonly result: FeedbackIngestResult;
  readonly serverMessages: readonly string[];
  constructor(result: FeedbackIngestResult) {
    super(
      `feedback ingest: ${result.failed} of ${result.ingested + result.failed} items failed${
        result.errors.length
          ? `: ${result.errors
              .slice(0, 5)
              .map((e) => `${e.unique_id}: ${e.error}`)
              .join('; ')}`
          : ''
      }`,
      'FEEDBACK_PARTIAL_FAILURE',
      { status: 200 },
    );
    this.result = result;
    this.serverMessages = result.errors.map((e) => `${e.unique_id}: ${e.error}`);
  }
}

export interface IngestOptions extends CallOptions {
  /** `resolve` (default): a partial failure resolves with the counts (check `failed`); `throw`: FeedbackPartialFailureError. */
  partialFailure?: 'resolve' | 'throw';
}

/** Checks an ingest request; returns whether every item and part has a `unique_id` (safe to resend). */
export function validateFeedback(sourceId: unknown, items: unknown): boolean {
  requireString('source_id', sourceId);
  let keyed = true;
  requireArray('items', items, FEEDBACK_LIMITS.minItems, FEEDBACK_LIMITS.maxItems).forEach((raw, i) => {
    const at = `items[${i}]`;
    const item = fields(at, raw);
    if (typeof item.unique_id !== 'string' || item.unique_id === '') keyed = false;
    if (item.conversation_parts === undefined) return;
    requireArray(`${at}.conversation_parts`, item.conversation_parts).forEach((p, j) => {
      const pat = `${at}.conversation_parts[${j}]`;
      const part = fields(pat, p);
      if (typeof part.body !== 'string' || part.body.length < 1) {
        throw new ValidationError(`${pat}.body`, 'a conversation part needs a body of at least 1 character');
      }
      if (part.conversation_parts !== undefined)
        throw new ValidationError(`${pat}.conversation_parts`, 'conversation parts cannot be nested');
      if (typeof part.unique_id !== 'string' || part.unique_id === '') keyed = false;
    });
  });
  return keyed;
}

export class FeedbackClient extends ClientOf<Transport> {
  /**
   * Sends 1 to 100 items of one source (payload ≤ 5 MB). A partial failure resolves with the counts and one
   * `errors` entry per failed item; check `failed`.
   */
  async ingest(sourceId: string, items: readonly FeedbackItem[], o: IngestOptions = {}): Promise<FeedbackIngestResult> {
    if (o.partialFailure !== undefined && o.partialFailure !== 'resolve' && o.partialFailure !== 'throw') {
      throw new ValidationError('partialFailure', 'must be "resolve" or "throw"');
    }
    const resendable = validateFeedback(sourceId, items);
    const payload = { source_id: sourceId, items };
    requireMaxBytes('items', JSON.stringify(payload), FEEDBACK_LIMITS.maxPayloadBytes, 'the JSON payload');
    const res = await this.via.request({
      method: 'POST',
      host: 'feedback',
      path: FEEDBACK_PATH,
      json: payload,
      auth: 'basic',
      family: 'feedback',
      retry: resendable,
      ...callSpec(o),
    });
    const body = jsonObject(res, `POST ${FEEDBACK_PATH}`);
    if (typeof body.ingested !== 'number' || typeof body.failed !== 'number') {
      throw new MalformedResponseError(`POST ${FEEDBACK_PATH}: the response has no ingested/failed counts`);
    }
    const errors = Array.isArray(body.errors)
      ? body.errors.map((e) =>
          isPlainObject(e)
            ? { ...e, unique_id: String(e.unique_id ?? ''), error: String(e.error ?? '') }
            : { unique_id: '', error: String(e) },
        )
      : [];
    const result: FeedbackIngestResult = { ...body, ingested: body.ingested, failed: body.failed, errors };
    if (result.failed > 0 && o.partialFailure === 'throw') throw new FeedbackPartialFailureError(result);
    return result;
  }
}
