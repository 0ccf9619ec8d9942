/**
 * Types of the experiment and flag management API (spec document 1). Fields are those the spec lists; records
 * carry more fields the spec does not show, so every record type is open (`[field: string]: unknown`).
 */

import { EXPERIMENT_CONDITION_OPS, FILTER_OPS, FLAG_CONDITION_OPS, MANAGEMENT_SPEC } from '../util/spec-constants.js';

export type ManagementKind = 'experiments' | 'flags';

/** The allowed operators, from the spec constants shared with the sandbox (src/util/spec-constants.ts). */
export { EXPERIMENT_CONDITION_OPS, FILTER_OPS, FLAG_CONDITION_OPS };
export type FilterOp = (typeof FILTER_OPS)[number];
export type ExperimentConditionOp = (typeof EXPERIMENT_CONDITION_OPS)[number];
export type FlagConditionOp = (typeof FLAG_CONDITION_OPS)[number];

/** Spec doc 1 limits as the client applies them (src/util/spec-constants.ts). */
export const MANAGEMENT_LIMITS = MANAGEMENT_SPEC;

/** Exposure event filter object. */
export interface ExposureFilter {
  group_type: string;
  subprop_key: string;
  subprop_op: FilterOp;
  subprop_type: string;
  subprop_value: string[];
}

export interface ExposureEvent {
  event_type: string;
  filters: ExposureFilter[];
}

/** Fields shared by the experiment and the flag edit bodies. */
interface CommonEdit {
  name?: string;
  description?: string;
  /** A property name. */
  bucketingKey?: string;
  bucketingSalt?: string;
  /** `remote` appears in the spec's requests; the complete set is not shown. */
  evaluationMode?: 'remote' | (string & {});
  /** An integer. */
  rolloutPercentage?: number;
  enabled?: boolean;
  tags?: string[];
}

/** PATCH /api/1/experiments/{id} body; partial bodies are fine. */
export interface ExperimentEdit extends CommonEdit {
  /** `a-b-test` appears in the spec's requests; the complete set is not shown. */
  experimentType?: 'a-b-test' | (string & {});
  stickyBucketing?: boolean;
  /** ISO 8601 timestamp. */
  startDate?: string;
  /** ISO 8601 timestamp. */
  endDate?: string;
  exposureEvent?: ExposureEvent;
}

/** PATCH /api/1/flags/{id} body; partial bodies are fine. */
export interface FlagEdit extends CommonEdit {
  bucketingUnit?: string;
}

export interface Variant {
  /** Identifies the variant inside its experiment or flag. */
  key: string;
  name?: string;
  description?: string;
  /** Any JSON value (an object in the spec's request shapes). */
  payload?: unknown;
  rolloutWeight?: number;
}

/** PATCH body of a variant: the variant fields, each optional. */
export type VariantEdit = Partial<Variant>;

export interface Condition<Op extends string = string> {
  prop: string;
  op: Op;
  /** `property` appears in the spec's requests. */
  type: 'property' | (string & {});
  values: string[];
}

export interface Segment<Op extends string = string> {
  name?: string;
  conditions: Condition<Op>[];
  percentage?: number;
  bucketingKey?: string;
  /** Variant key → weight. */
  rolloutWeights?: Record<string, number>;
}

/** POST /api/1/{kind} body. Which fields are required is not shown; the client requires only `projectId` and `key`. */
interface CreateBase<Op extends string> {
  projectId: string;
  key: string;
  name?: string;
  description?: string;
  variants?: { key: string; [field: string]: unknown }[];
  rolloutWeights?: Record<string, number>;
  targetSegments?: Segment<Op>[];
  /** Deployment IDs. */
  deployments?: string[];
  evaluationMode?: 'remote' | (string & {});
}
export interface ExperimentCreate extends CreateBase<ExperimentConditionOp> {
  experimentType?: 'a-b-test' | (string & {});
}
export type FlagCreate = CreateBase<FlagConditionOp>;

export interface CreatedRecord {
  id: string;
  url: string;
  [field: string]: unknown;
}

/** What a record holds besides its edit fields: the spec lists `createdAt`/`lastModifiedAt`; the rest is not shown. */
interface RecordFields {
  id?: string;
  key?: string;
  /** UTC, ISO 8601 (read-only). */
  createdAt?: string;
  /** UTC, ISO 8601 (read-only). */
  lastModifiedAt?: string;
  [field: string]: unknown;
}

export interface ExperimentRecord extends ExperimentEdit, RecordFields {}
export interface FlagRecord extends FlagEdit, RecordFields {}

/** Version and deployment records: the spec shows none of their fields. */
export type VersionRecord = Record<string, unknown>;
export type DeploymentRecord = Record<string, unknown>;
/** Elements of `GET .../variants/{variantKey}/users`: "inclusion objects" whose shape is not shown. */
export type InclusionRecord = unknown;
