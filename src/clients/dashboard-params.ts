/**
 * Building dashboard query parameters with the rules of spec document 3: dates YYYYMMDD, event objects and
 * segments JSON-encoded, session length bins checked (the server would silently fall back to default bins).
 */
import { ValidationError } from '../http/errors.js';
import type { QueryParams, QueryValue } from '../http/transport.js';
import {
  isPlainObject,
  requireArray,
  requireFiniteNumber,
  requireObject,
  requireOneOf,
  requireString,
  requireStringList,
  requireYyyymmdd,
} from './checks.js';
import type { DashboardEvent, SegmentDefinition } from './dashboard-types.js';
import { DASHBOARD_SPEC } from '../util/spec-constants.js';

/** Longest session the platform measures: 1 day. */
export const MAX_SESSION_LENGTH_MS = DASHBOARD_SPEC.maxSessionMs;

/** Units of `timeHistogramConfigBinTimeUnit`; the spec shows `minutes` only, the others are assumed. */
export const BIN_TIME_UNITS = { seconds: 1000, minutes: 60_000, hours: 3_600_000 } as const;
export type BinTimeUnit = keyof typeof BIN_TIME_UNITS;

export interface DateRange {
  /** First day, YYYYMMDD (project time zone). */
  start: string;
  /** Last day, YYYYMMDD, not before `start`. */
  end: string;
}

export interface QueryExtras {
  /** Segment definitions, sent JSON-encoded as `s` (the parameter name is assumed; the spec does not show it). */
  segments?: SegmentDefinition[];
  /**
   * Parameters the spec does not show (interval, metric, group-by, ...), sent as given; a name the client already
   * sets is refused.
   */
  extraParams?: QueryParams;
}

export function dateRange(r: DateRange): { start: string; end: string } {
  const o = requireObject('query', r);
  const start = requireYyyymmdd('start', o.start);
  const end = requireYyyymmdd('end', o.end);
  if (start > end) throw new ValidationError('end', `is before start (${start} > ${end})`);
  return { start, end };
}

function filterList(field: string, v: unknown): void {
  requireArray(field, v).forEach((raw, i) => {
    const at = `${field}[${i}]`;
    const f = requireObject(at, raw);
    requireString(`${at}.subprop_type`, f.subprop_type);
    requireString(`${at}.subprop_key`, f.subprop_key);
    requireString(`${at}.subprop_op`, f.subprop_op);
    requireStringList(`${at}.subprop_value`, f.subprop_value);
  });
}

/** Checks an event object and returns its JSON text. */
export function encodeEvent(field: string, e: DashboardEvent): string {
  const o = requireObject(field, e);
  requireString(`${field}.event_type`, o.event_type);
  if (o.filters !== undefined) filterList(`${field}.filters`, o.filters);
  if (o.group_by !== undefined) {
    requireArray(`${field}.group_by`, o.group_by).forEach((g, i) => {
      const x = requireObject(`${field}.group_by[${i}]`, g);
      requireString(`${field}.group_by[${i}].type`, x.type);
      requireString(`${field}.group_by[${i}].value`, x.value);
    });
  }
  return JSON.stringify(e);
}

/** Checks segment definitions and returns their JSON text. */
function encodeSegments(segments: readonly SegmentDefinition[]): string {
  requireArray('s', segments).forEach((raw, i) => {
    const at = `s[${i}]`;
    const s = requireObject(at, raw);
    requireString(`${at}.op`, s.op);
    if (s.prop !== undefined) {
      requireString(`${at}.prop`, s.prop);
      requireStringList(`${at}.values`, s.values);
      return;
    }
    requireOneOf(`${at}.type`, s.type, ['event'] as const);
    requireString(`${at}.event_type`, s.event_type);
    requireArray(`${at}.filters`, s.filters);
    requireFiniteNumber(`${at}.value`, s.value);
    const timeType = requireOneOf(`${at}.time_type`, s.time_type, ['forEachInterval', 'allTime'] as const);
    if (timeType === 'forEachInterval' || s.time_value !== undefined)
      requireFiniteNumber(`${at}.time_value`, s.time_value);
  });
  return JSON.stringify(segments);
}

/** Merges the named parameters, the segments and the caller's extra parameters. */
export function withExtras(params: Record<string, QueryValue>, x: QueryExtras | undefined): QueryParams {
  const out: Record<string, QueryValue> = { ...params };
  if (x?.segments !== undefined) out.s = encodeSegments(x.segments);
  if (x?.extraParams !== undefined) {
    if (!isPlainObject(x.extraParams))
      throw new ValidationError('extraParams', 'must be an object of query parameters');
    for (const [k, v] of Object.entries(x.extraParams)) {
      if (k in out) throw new ValidationError(k, 'is set by the client; do not pass it in extraParams');
      out[k] = v;
    }
  }
  return out;
}

export interface SessionLengthBins {
  /** Lower edge, in `timeUnit`, ≥ 0. */
  min: number;
  /** Upper edge, in `timeUnit`; above `min`, at most 1 day. */
  max: number;
  timeUnit: BinTimeUnit;
  /** Bin width in `timeUnit`; left out, the service picks the bin sizes. */
  binSize?: number;
}

/** The four `timeHistogramConfig*` parameters (Min, Max and TimeUnit always together). */
export function binParams(b: SessionLengthBins): Record<string, number | string> {
  const o = requireObject('bins', b);
  const unit = requireOneOf('timeHistogramConfigBinTimeUnit', o.timeUnit, Object.keys(BIN_TIME_UNITS) as BinTimeUnit[]);
  const min = requireFiniteNumber('timeHistogramConfigBinMin', o.min);
  const max = requireFiniteNumber('timeHistogramConfigBinMax', o.max);
  if (min < 0) throw new ValidationError('timeHistogramConfigBinMin', `must be ≥ 0 (got ${min})`);
  if (max <= min) throw new ValidationError('timeHistogramConfigBinMax', `must be above the minimum (${max} ≤ ${min})`);
  if (max * BIN_TIME_UNITS[unit] > MAX_SESSION_LENGTH_MS) {
    throw new ValidationError(
      'timeHistogramConfigBinMax',
      `${max} ${unit} is longer than the maximum session length of 1 day`,
    );
  }
  const out: Record<string, number | string> = {
    timeHistogramConfigBinMin: min,
    timeHistogramConfigBinMax: max,
    timeHistogramConfigBinTimeUnit: unit,
  };
  if (o.binSize !== undefined) {
    const size = requireFiniteNumber('timeHistogramConfigBinSize', o.binSize);
    if (size <= 0 || size > max - min) {
      throw new ValidationError(
        'timeHistogramConfigBinSize',
        `must be above 0 and at most max − min (${max - min}) (got ${size})`,
      );
    }
    out.timeHistogramConfigBinSize = size;
  }
  return out;
}
