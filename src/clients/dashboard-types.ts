/**
 * Request objects and response shapes of the dashboard query API (spec document 3). Shapes are the fields the
 * spec lists; every object is open (`[field: string]: unknown`) because the spec does not show full shapes, and
 * members whose element type is not given are `unknown`.
 */

/** Event filter: `subprop_type` (`event`/`user` appear), `subprop_key` (custom user properties as `gp:name`). */
export interface DashboardFilter {
  subprop_type: 'event' | 'user' | (string & {});
  subprop_key: string;
  /** `is` appears in the spec. */
  subprop_op: 'is' | (string & {});
  subprop_value: string[];
}

/** Event object of the `e`, `se` and `re` parameters (sent JSON-encoded). */
export interface DashboardEvent {
  event_type: string;
  filters?: DashboardFilter[];
  /** `value`: a built-in property (version, country, city, region, DMA, language, platform, os, device, device_type, start_version, paying) or `gp:name`. */
  group_by?: { type: string; value: string }[];
}

export interface PropertySegment {
  prop: string;
  op: string;
  values: string[];
}

export interface BehaviourSegment {
  /** e.g. `>=`. */
  op: string;
  type: 'event';
  event_type: string;
  filters: unknown[];
  value: number;
  time_type: 'forEachInterval' | 'allTime';
  /** Required with `forEachInterval`. */
  time_value?: number;
}

export type SegmentDefinition = PropertySegment | BehaviourSegment;

export interface TimeSeries {
  series: unknown[];
  xValues: string[];
  [field: string]: unknown;
}

/** `/api/2/users`. */
export interface ActiveUsersData extends TimeSeries {
  series: number[][];
  seriesMeta: string[];
}

/** `/api/2/sessions/length`: `xValues` are bucket labels. */
export type SessionLengthData = TimeSeries;

/** `/api/2/sessions/average` and `/peruser` (average: seconds per day). */
export interface SessionsData extends TimeSeries {
  seriesMeta: { segmentIndex: number; [field: string]: unknown }[];
}

/** `/api/2/composition`: `xValues` are property values. */
export interface CompositionData extends TimeSeries {
  seriesLabels: unknown[];
}

/** One element of `/api/2/events/list`. */
export interface EventListEntry {
  non_active: boolean;
  value: string;
  totals: number;
  deleted: boolean;
  flow_hidden: boolean;
  hidden: boolean;
  display: string;
  [field: string]: unknown;
}

export interface SegmentationData extends TimeSeries {
  seriesLabels: unknown[];
  seriesCollapsed: { value: number; [field: string]: unknown }[][];
}

/** One group of `/api/2/funnels`. */
export interface FunnelGroup {
  meta: { segmentIndex: number; [field: string]: unknown };
  dayMedianTransTimes: unknown;
  dayAvgTransTimes: unknown;
  dayFunnels: { series: unknown[]; xValues: string[]; formattedXValues: string[]; [field: string]: unknown };
  stepByStep: unknown[];
  medianTransTimes: unknown[];
  cumulative: unknown[];
  cumulativeRaw: unknown[];
  avgTransTimes: unknown[];
  events: unknown[];
  [field: string]: unknown;
}

export interface RetentionCount {
  count: number;
  outof: number;
  incomplete: boolean;
  [field: string]: unknown;
}

export interface RetentionData {
  series: {
    dates: string[];
    values: Record<string, RetentionCount[]>;
    combined: (RetentionCount & { retainedSetId: unknown })[];
    [field: string]: unknown;
  }[];
  seriesMeta: { segmentIndex: number; eventIndex: number; [field: string]: unknown }[];
  [field: string]: unknown;
}

export interface UserData {
  user_id: string | null;
  canonical_platform_id: number;
  merged_platform_ids: number[];
  num_events: number;
  num_sessions: number;
  usage_time: number;
  first_used: string;
  last_used: string;
  purchases: number;
  revenue: number;
  platform: string | null;
  os: string | null;
  version: string | null;
  device: string | null;
  device_type: string | null;
  carrier: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  dma: string | null;
  language: string | null;
  start_version: string | null;
  device_ids: string[];
  last_location: { lat: number; lng: number } | null;
  properties: Record<string, unknown>;
  [field: string]: unknown;
}

/** `/api/2/useractivity`: the element shape of `events` is not shown by the spec. */
export interface UserActivity {
  userData: UserData;
  events: unknown[];
  [field: string]: unknown;
}

/** `/api/2/usersearch`: `type` is `match_user_or_device_id`, or `nomatch` with no matches. */
export interface UserSearchResult {
  matches: { user_id: string; platform_id: number; [field: string]: unknown }[];
  type: 'match_user_or_device_id' | 'nomatch' | (string & {});
  [field: string]: unknown;
}

/** `/api/2/realtime`: 5-minute steps over two days; labels Today, Yesterday. */
export interface RealtimeData extends TimeSeries {
  seriesLabels: string[];
}

export interface LtvValues {
  r1d?: number;
  r90d?: number;
  count: number;
  paid: number;
  total_amount: number;
  /** r1d ... r90d. */
  [field: string]: unknown;
}

export interface RevenueLtvData {
  seriesLabels: unknown[];
  series: { dates: string[]; values: Record<string, LtvValues>; [field: string]: unknown }[];
  [field: string]: unknown;
}
