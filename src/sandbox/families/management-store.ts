/**
 * The management family's in-memory state (spec document 1) for the life of one sandbox: experiments and flags with
 * their variants, user and cohort inclusions, deployments and stored versions.
 *
 * Ids are deterministic: experiments are numbered from 10001 and flags from 20001, in the order created, so that a
 * script (test/cli/api-examples) can name the id a create will answer. Every change to a record (edit, variants,
 * inclusions, deployments) stores a new version numbered from 1 (the create) upwards.
 */
import { ApiRequestError } from '../context.js';
import { VARIANT_FIELDS, type Kind } from './management-checks.js';

const FIRST_ID: Readonly<Record<Kind, number>> = { experiments: 10001, flags: 20001 };

/**
 * Experiment types whose experiments count as made by web experimentation or by guides and surveys, which the spec
 * says cannot be edited (405). How the real service marks them is not shown; in the sandbox it is `experimentType`.
 */
export const NOT_EDITABLE_TYPES = ['web', 'guides-and-surveys'];

interface StoredVariant {
  fields: Record<string, unknown>;
  users: string[];
  cohorts: string[];
}

export interface StoredRecord {
  readonly id: string;
  readonly seq: number;
  fields: Record<string, unknown>;
  variants: StoredVariant[];
  deployments: string[];
  versions: Array<{ version: number; createdAt: string; config: Record<string, unknown> }>;
  createdAt: string;
  lastModifiedAt: string;
}

function notFound(what: string): ApiRequestError {
  return new ApiRequestError(404, 'not_found', `${what} not found`);
}

function variantFields(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(VARIANT_FIELDS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** The records of one kind. */
export class ManagementStore {
  readonly #records = new Map<string, StoredRecord>();
  #next: number;

  constructor(
    readonly kind: Kind,
    private readonly baseUrl: string,
    private readonly now: () => number,
  ) {
    this.#next = FIRST_ID[kind];
  }

  #time(): string {
    return new Date(this.now()).toISOString();
  }

  /** Most recently created first, at most `limit`. */
  list(limit: number): StoredRecord[] {
    return [...this.#records.values()].sort((a, b) => b.seq - a.seq).slice(0, limit);
  }

  get(id: string): StoredRecord {
    const r = this.#records.get(id);
    if (!r) throw notFound(`${this.kind === 'flags' ? 'flag' : 'experiment'} ${JSON.stringify(id)}`);
    return r;
  }

  /** A new record from a checked create body; a key already used by a record of this kind is a 409. */
  create(body: Record<string, unknown>): StoredRecord {
    if ([...this.#records.values()].some((r) => r.fields.key === body.key)) {
      throw new ApiRequestError(409, 'conflict', `a record with key ${JSON.stringify(body.key)} exists already`);
    }
    const {
      variants = [],
      deployments = [],
      ...rest
    } = body as { variants?: Record<string, unknown>[]; deployments?: string[]; key: string };
    const seq = this.#next++;
    const id = String(seq);
    const at = this.#time();
    // Defaults of the fields a create does not set (the real defaults are not shown).
    const defaults: Record<string, unknown> = {
      name: rest.key,
      description: '',
      enabled: false,
      rolloutPercentage: 0,
      bucketingKey: 'amplitude_id',
      bucketingSalt: `salt-${id}`,
      evaluationMode: 'remote',
      tags: [],
      ...(this.kind === 'experiments'
        ? { experimentType: 'a-b-test', stickyBucketing: false }
        : { bucketingUnit: 'User' }),
    };
    const record: StoredRecord = {
      id,
      seq,
      fields: { ...rest, ...Object.fromEntries(Object.entries(defaults).filter(([k]) => !(k in rest))) },
      variants: variants.map((v) => ({ fields: variantFields(v), users: [], cohorts: [] })),
      deployments: [...new Set(deployments)],
      versions: [],
      createdAt: at,
      lastModifiedAt: at,
    };
    this.#records.set(id, record);
    this.#storeVersion(record);
    return record;
  }

  /** Stores a new version of the record (after any change to it). */
  changed(r: StoredRecord): void {
    r.lastModifiedAt = this.#time();
    this.#storeVersion(r);
  }

  #storeVersion(r: StoredRecord): void {
    r.versions.push({ version: r.versions.length + 1, createdAt: r.lastModifiedAt, config: this.json(r) });
  }

  variant(r: StoredRecord, key: string): StoredVariant {
    const v = r.variants.find((x) => x.fields.key === key);
    if (!v) throw notFound(`variant ${JSON.stringify(key)}`);
    return v;
  }

  addVariant(r: StoredRecord, fields: Record<string, unknown>): void {
    if (r.variants.some((x) => x.fields.key === fields.key))
      throw new ApiRequestError(409, 'conflict', `variant ${JSON.stringify(fields.key)} exists already`);
    r.variants.push({ fields: variantFields(fields), users: [], cohorts: [] });
  }

  /** Edits a variant's fields; a new `key` renames it (a key another variant has is a 409). */
  editVariant(r: StoredRecord, key: string, edit: Record<string, unknown>): void {
    const v = this.variant(r, key);
    if (edit.key !== undefined && edit.key !== key && r.variants.some((x) => x.fields.key === edit.key)) {
      throw new ApiRequestError(409, 'conflict', `variant ${JSON.stringify(edit.key)} exists already`);
    }
    v.fields = { ...v.fields, ...variantFields(edit) };
  }

  deleteVariant(r: StoredRecord, key: string): void {
    const v = this.variant(r, key);
    r.variants = r.variants.filter((x) => x !== v);
  }

  /** The `url` a create answers. What it points at is not shown: the sandbox gives the record's own API address. */
  url(r: StoredRecord): string {
    return `${this.baseUrl}/api/1/${this.kind}/${r.id}`;
  }

  /** The record as GET answers it: its fields, variants (without inclusions), deployment ids and timestamps. */
  json(r: StoredRecord): Record<string, unknown> {
    return {
      id: r.id,
      ...r.fields,
      variants: r.variants.map((v) => ({ ...v.fields })),
      deployments: [...r.deployments],
      createdAt: r.createdAt,
      lastModifiedAt: r.lastModifiedAt,
    };
  }
}
