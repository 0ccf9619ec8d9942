/**
 * Typed clients for the platform's REST API families other than session replay (see src/replay). Each takes a
 * `Transport` (src/http) and validates requests before sending them (ValidationError).
 */
export type { CallOptions } from './call-options.js';
export { MalformedResponseError } from './response.js';
export type { UnspecifiedResponse } from './response.js';
export { checkBodyFields, describeBody } from './body-schema.js';
export type { BodyField, BodyFieldType, BodySchema } from './body-schema.js';
export { errorFields, type ErrorFields } from './error-fields.js';
export { UnknownReplayError } from './replay-files.js';
export { ValidationError } from '../http/errors.js';

// Experiment and flag management (spec doc 1)
export { ExperimentsClient, FlagsClient } from './management.js';
export type { ListOptions } from './management.js';
export { EXPERIMENT_CONDITION_OPS, FILTER_OPS, FLAG_CONDITION_OPS, MANAGEMENT_LIMITS } from './management-types.js';
export type {
  Condition,
  CreatedRecord,
  DeploymentRecord,
  ExperimentConditionOp,
  ExperimentCreate,
  ExperimentEdit,
  ExperimentRecord,
  ExposureEvent,
  ExposureFilter,
  FilterOp,
  FlagConditionOp,
  FlagCreate,
  FlagEdit,
  FlagRecord,
  InclusionRecord,
  ManagementKind,
  Segment,
  Variant,
  VariantEdit,
  VersionRecord,
} from './management-types.js';

// User mapping, group identify, attribution, taxonomy (spec doc 2)
export { MappingPartialFailureError, USER_MAPPING_LIMITS, UserMappingClient } from './user-mapping.js';
export type { MappedUser, MappingOptions, UserMapping, UserMappings } from './user-mapping.js';
export { GROUP_IDENTIFY_LIMITS, GroupIdentifyClient } from './group-identify.js';
export type { GroupIdentification } from './group-identify.js';
export { ATTRIBUTION_IDENTIFIERS, AttributionClient } from './attribution.js';
export type { AttributionEvent, AttributionOptions } from './attribution.js';
export { TaxonomyClient } from './taxonomy.js';
export { TAXONOMY_PATH } from './taxonomy-call.js';
export { TaxonomyCategories, TaxonomyEventTypes } from './taxonomy-events.js';
export type { EventTypeCreate, EventTypeUpdate, ShowDeletedOption } from './taxonomy-events.js';
export { TaxonomyEventProperties, TaxonomyGroupProperties, TaxonomyUserProperties } from './taxonomy-properties.js';
export type {
  EventPropertyCreate,
  EventPropertyUpdate,
  EventTypeOption,
  GroupPropertyCreate,
  GroupPropertyUpdate,
  GroupTypeOption,
  UserPropertyCreate,
  UserPropertyUpdate,
} from './taxonomy-properties.js';
export { TaxonomyFailureError } from './taxonomy-types.js';
export type {
  EventCategory,
  EventPropertyRecord,
  EventTypeRecord,
  EventVisibilityFlags,
  GroupPropertyRecord,
  PropertyFields,
  PropertyType,
  UserPropertyRecord,
} from './taxonomy-types.js';

// Dashboard queries and feedback ingestion (spec doc 3)
export { DashboardClient } from './dashboard.js';
export type { DashboardOptions, RangeQuery } from './dashboard.js';
export { BIN_TIME_UNITS, MAX_SESSION_LENGTH_MS } from './dashboard-params.js';
export type { BinTimeUnit, DateRange, QueryExtras, SessionLengthBins } from './dashboard-params.js';
export type * from './dashboard-types.js';
export {
  FEEDBACK_LIMITS,
  FEEDBACK_PATH,
  FeedbackClient,
  FeedbackPartialFailureError,
  validateFeedback,
} from './feedback.js';
export type { ConversationPart, FeedbackIngestResult, FeedbackItem, IngestOptions } from './feedback.js';

// Session replay (spec doc 3) and the transport every client is built on.
export { SessionReplayClient, PageLoopError, ListingStalledError, DEFAULT_STALL_PAGES } from '../replay/index.js';
export type {
  FilesPage,
  FilesOptions,
  ListReplaysQuery,
  PresignedFile,
  ReplayRecord,
  SessionReplayClientOptions,
  SortOrder,
} from '../replay/index.js';
export { validateReplayId } from '../replay/validation.js';
export {
  Transport,
  ApiError,
  AuthError,
  HttpClientError,
  MissingCredentialsError,
  NetworkError,
  RateLimitError,
  StorageRedirectError,
  TimeoutError,
  UrlExpiredError,
} from '../http/index.js';
export type { AnswerSeen, ApiResponse, Logger, LogEvent, Region, TransportOptions } from '../http/index.js';

// Every operation above as data (the `replay-export api` command is built from it).
export {
  ApiClients,
  findOperation,
  knownNames,
  OPERATIONS,
  OperationArgs,
  operationNames,
  paramTypeText,
  pathParams,
  sendRaw,
  wireOf,
} from './catalogue.js';
export type { Operation, ParamSpec, ParamType } from './catalogue.js';
