export { PageLoopError, SessionReplayClient } from './client.js';
export type { FilesOptions, FilesPage, SessionReplayClientOptions } from './client.js';
export { DEFAULT_STALL_PAGES, ListingStalledError } from './listing-progress.js';
export { MalformedResponseError } from './records.js';
export type { PresignedFile, ReplayRecord } from './records.js';
export { buildFilesParams, buildListParams } from './validation.js';
export type { ListReplaysQuery, SortOrder } from './validation.js';
export { isPlausibleReplayTime, parseTimestamp } from './timestamps.js';
