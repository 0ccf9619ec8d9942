export { FILES_PATH, LIST_PATH, PageLoopError, SessionReplayClient } from './client.js';
export type { CallOptions, FilesOptions, FilesPage, ReplaysPage, SessionReplayClientOptions } from './client.js';
export { DEFAULT_STALL_PAGES, ListingStalledError } from './listing-progress.js';
export { MalformedResponseError, toPresignedFile, toReplayRecord } from './records.js';
export type { PresignedFile, ReplayRecord } from './records.js';
export {
  DEFAULT_FILE_VERSION,
  FILES_PAGE_SIZE,
  LIST_PAGE_SIZE,
  MAX_REPLAY_IDS,
  buildFilesParams,
  buildListParams,
  validateFileVersion,
  validatePageSize,
  validatePlatformId,
  validateReplayId,
  validateSortOrder,
} from './validation.js';
export type { FileVersion, FilesQuery, ListParams, FilesParams, ListReplaysQuery, SortOrder } from './validation.js';
export { EARLIEST_PLAUSIBLE_MS, isPlausibleReplayTime, parseTimestamp, toIsoUtc } from './timestamps.js';
export { ValidationError } from '../http/errors.js';
