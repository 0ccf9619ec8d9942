/**
 * Every `code` a `ReplayExportError` can carry: one spelling, UPPER_SNAKE, as Node's and undici's own `err.code`
 * (`ERR_INVALID_ARG_TYPE`, `UND_ERR_CONNECT_TIMEOUT`). Codes are public API: programs switch on them and manifests
 * record them (a failed or quarantined line's `error.code`). What a remote said (S3's `AccessDenied`, a system call's
 * `ENOENT`) is not one of these: it is kept as data beside the code (`NetworkError.causeCode`, a message).
 *
 * This module imports nothing, so that every floor can name a code.
 */
export const ERROR_CODES = Object.freeze([
  // options and usage (src/errors.ts, src/pipeline, bin/)
  'CONFIG_ERROR',
  'INTERRUPTED',
  'INTERNAL_ERROR',
  'BAD_BYTE_SIZE',
  'BAD_DURATION',
  'SHARD_CONFIG',
  'INVALID_TIME_RANGE',
  'INVALID_MAX',
  'FORGET_REASON',
  'INVALID_ONE_REPLAY_EXPORT',
  'PROFILE_STORE_INVALID',
  'PROFILE_STORE_UNREADABLE',
  'JQ_ERROR',
  'S3_REGION_MISSING',
  'PROFILE_STORE_MODE',
  'PROFILE_NOT_FOUND',
  'FILE_NOT_FOUND',
  'FORGET_WHAT',
  // the platform's API (src/http, src/replay, src/clients)
  'MISSING_CREDENTIALS',
  'API_ERROR',
  'AUTH_FAILED',
  'RATE_LIMITED',
  'MAX_WAIT_EXCEEDED',
  'URL_EXPIRED',
  'STORAGE_REDIRECT',
  'NETWORK_ERROR',
  'TIMEOUT',
  'VALIDATION_ERROR',
  'RESPONSE_TOO_LARGE',
  'BAD_DOWNLOAD_URL',
  'BAD_RESPONSE_JSON',
  'COST_EXCEEDS_BUDGET',
  'LISTING_STALLED',
  'PAGE_TOKEN_LOOP',
  'MALFORMED_RESPONSE',
  'MAPPING_PARTIAL_FAILURE',
  'TAXONOMY_FAILURE',
  'FEEDBACK_PARTIAL_FAILURE',
  // a replay (src/pipeline)
  'FILE_LISTING_CHANGED',
  'TOO_MANY_FILES',
  'REPLAY_ID_TOO_LONG',
  'REPLAY_NOT_FOUND',
  // decoding (decoders/)
  'BAD_GZIP',
  'BAD_JSON',
  'TRUNCATED',
  'EMPTY',
  'NOT_AN_ARRAY',
  'TRAILING_DATA',
  'NOT_AN_EVENT',
  'BAD_UTF8',
  'VERSION_MISMATCH',
  'BAD_PACKED',
  'BAD_ZLIB',
  'BAD_INNER_JSON',
  'UNKNOWN_PACKER',
  'EVENT_TOO_LARGE',
  'REPLAY_TOO_LARGE',
  // redaction (src/redaction)
  'INVALID_REDACTION_POLICY',
  'REDACTION_FAILED',
  'REDACTION_TOO_COMPLEX',
  // the target (sinks/)
  'SINK_CONFIG',
  'SINK_PATH_ESCAPE',
  'SINK_BAD_EVENT',
  'SINK_STATE',
  'SINK_IO',
  'SINK_S3',
  'SINK_AUTH',
  'SINK_INTEGRITY',
  'MANIFEST_CORRUPT',
  'MANIFEST_TOO_LARGE',
  'ARCHIVE_NOT_FOUND',
  // verify, view, video
  'VERIFY_BAD_OBJECT',
  'VERIFY_UNSUPPORTED_ARCHIVE',
  'VIEW_BAD_OBJECT',
  'VIEW_TOO_LARGE',
  'VIEW_UNSAFE_KEY',
  'VIEW_UNSUPPORTED_ARCHIVE',
  'VIDEO_NO_BROWSER',
  'VIDEO_NO_ENCODER',
  'VIDEO_BAD_OPTION',
  'VIDEO_EMPTY',
  'VIDEO_RENDER_FAILED',
  'VIDEO_TOO_LONG',
  'VIDEO_EVENT_TOO_LARGE',
  'VIDEO_LOAD_TIMEOUT',
  // the catalogue (src/catalogue)
  'CATALOGUE_UNAVAILABLE',
  'CATALOGUE_IO',
  'CATALOGUE_QUERY',
  // the sandbox (src/sandbox)
  'SANDBOX_CONFIG',
  'BAD_FAULTS',
] as const);

/** A code of the table above. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The codes thrown in lower case before they took the one spelling, each with its code now: manifests written before
 * hold them. The one reader of manifest entries (sinks/error-codes.ts) applies it, so that an old failed or quarantined
 * line compares equal to a new one. Each is its code upper-cased, but `bad_json` (an API answer that is not JSON),
 * which is `BAD_RESPONSE_JSON`: `BAD_JSON` is the decoders' (a replay file that is not JSON).
 */
export const RENAMED_CODES: Readonly<Record<string, ErrorCode>> = Object.freeze({
  api_error: 'API_ERROR',
  auth_failed: 'AUTH_FAILED',
  bad_download_url: 'BAD_DOWNLOAD_URL',
  bad_faults: 'BAD_FAULTS',
  bad_json: 'BAD_RESPONSE_JSON',
  config_error: 'CONFIG_ERROR',
  cost_exceeds_budget: 'COST_EXCEEDS_BUDGET',
  feedback_partial_failure: 'FEEDBACK_PARTIAL_FAILURE',
  file_listing_changed: 'FILE_LISTING_CHANGED',
  file_not_found: 'FILE_NOT_FOUND',
  forget_reason: 'FORGET_REASON',
  forget_what: 'FORGET_WHAT',
  internal_error: 'INTERNAL_ERROR',
  interrupted: 'INTERRUPTED',
  invalid_max: 'INVALID_MAX',
  invalid_one_replay_export: 'INVALID_ONE_REPLAY_EXPORT',
  invalid_redaction_policy: 'INVALID_REDACTION_POLICY',
  jq_error: 'JQ_ERROR',
  listing_stalled: 'LISTING_STALLED',
  malformed_response: 'MALFORMED_RESPONSE',
  mapping_partial_failure: 'MAPPING_PARTIAL_FAILURE',
  max_wait_exceeded: 'MAX_WAIT_EXCEEDED',
  missing_credentials: 'MISSING_CREDENTIALS',
  network_error: 'NETWORK_ERROR',
  page_token_loop: 'PAGE_TOKEN_LOOP',
  profile_not_found: 'PROFILE_NOT_FOUND',
  profile_store_invalid: 'PROFILE_STORE_INVALID',
  profile_store_mode: 'PROFILE_STORE_MODE',
  profile_store_unreadable: 'PROFILE_STORE_UNREADABLE',
  rate_limited: 'RATE_LIMITED',
  redaction_failed: 'REDACTION_FAILED',
  redaction_too_complex: 'REDACTION_TOO_COMPLEX',
  response_too_large: 'RESPONSE_TOO_LARGE',
  s3_region_missing: 'S3_REGION_MISSING',
  sandbox_config: 'SANDBOX_CONFIG',
  storage_redirect: 'STORAGE_REDIRECT',
  taxonomy_failure: 'TAXONOMY_FAILURE',
  timeout: 'TIMEOUT',
  too_many_files: 'TOO_MANY_FILES',
  url_expired: 'URL_EXPIRED',
  validation_error: 'VALIDATION_ERROR',
});

/** The code now of a code thrown before in lower case (`rate_limited` → `RATE_LIMITED`); undefined for any other. */
export function renamedCode(code: string): ErrorCode | undefined {
  return Object.hasOwn(RENAMED_CODES, code) ? RENAMED_CODES[code] : undefined;
}
