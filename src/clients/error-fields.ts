/**
 * The structured fields of a client error, for a script or a JSON log line: `code` (always), `status` (the HTTP
 * status, when a response decided it), `field` (the parameter a ValidationError names) and `server_messages` (what
 * the API's error body said: taxonomy `errors[].message`, dashboard `error`, feedback per-item errors). Never a
 * secret: the errors hold none (src/http/errors.ts).
 */
import { ReplayExportError, type ErrorCode } from '../errors.js';
import { ValidationError } from '../http/errors.js';

export interface ErrorFields {
  code: ErrorCode;
  status?: number;
  field?: string;
  server_messages?: string[];
}

export function errorFields(err: unknown): ErrorFields {
  if (!(err instanceof ReplayExportError)) return { code: 'INTERNAL_ERROR' };
  const out: ErrorFields = { code: err.code };
  if (err.status !== undefined) out.status = err.status;
  if (err instanceof ValidationError) out.field = err.field;
  const messages = (err as { serverMessages?: unknown }).serverMessages;
  if (Array.isArray(messages) && messages.length > 0) out.server_messages = messages.map(String);
  return out;
}
