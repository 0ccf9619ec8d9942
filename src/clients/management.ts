/**
 * Experiment and flag management API (spec document 1): `{base_url}/api/1/{experiments|flags}/...`,
 * `Authorization: Bearer <management key>`, JSON bodies, concurrency family `management`.
 * Mutations answer 200 with the text `OK`; they resolve with nothing.
 */
import type { HttpMethod, Transport } from '../http/transport.js';
import { pathSegment } from '../http/url-parts.js';
import { callSpec, type CallOptions } from './call-options.js';
import { requireString, requireStringArray } from './checks.js';
import {
  MANAGEMENT_LIMITS,
  type CreatedRecord,
  type DeploymentRecord,
  type ExperimentCreate,
  type ExperimentEdit,
  type ExperimentRecord,
  type FlagCreate,
  type FlagEdit,
  type FlagRecord,
  type InclusionRecord,
  type ManagementKind,
  type Variant,
  type VariantEdit,
  type VersionRecord,
} from './management-types.js';
import { validateCreate, validateEdit, validateLimit, validateVariant } from './management-validation.js';
import { jsonArray, jsonObject, MalformedResponseError } from './response.js';
import { ClientOf } from './client-of.js';

export interface ListOptions extends CallOptions {
  /** `limit` query parameter (a positive integer; the spec's samples use 1000). */
  limit?: number;
}

/** The operations shared by experiments and flags; `kind` picks the path. */
abstract class ManagementResourceClient<R, Edit, Create> extends ClientOf<Transport> {
  protected abstract readonly kind: ManagementKind;

  #path(id?: unknown, ...rest: string[]): string {
    const base = `/api/1/${this.kind}`;
    return id === undefined ? base : [base, pathSegment('id', id), ...rest].join('/');
  }

  #variant(id: string, variantKey: string, ...rest: string[]): string {
    return this.#path(id, 'variants', pathSegment('variantKey', variantKey), ...rest);
  }

  async #send(
    method: HttpMethod,
    path: string,
    o: CallOptions | undefined,
    extra: { json?: unknown; query?: Record<string, number> } = {},
  ) {
    return this.via.request({
      method,
      host: 'base',
      path,
      auth: 'bearer',
      family: 'management',
      ...extra,
      ...callSpec(o),
    });
  }

  async #getArray<T>(path: string, o?: CallOptions, query?: Record<string, number>): Promise<T[]> {
    return jsonArray(await this.#send('GET', path, o, query ? { query } : {}), `GET ${path}`) as T[];
  }

  async #getObject<T>(path: string, o?: CallOptions): Promise<T> {
    return jsonObject(await this.#send('GET', path, o), `GET ${path}`) as T;
  }

  /** `GET /api/1/{kind}?limit=`: records, most recently created first. */
  async list(o: ListOptions = {}): Promise<R[]> {
    const query = o.limit === undefined ? undefined : { limit: validateLimit(o.limit) };
    return this.#getArray<R>(this.#path(), o, query);
  }

  /** `GET /api/1/{kind}/{id}`. */
  async get(id: string, o?: CallOptions): Promise<R> {
    return this.#getObject<R>(this.#path(id), o);
  }

  /** `POST /api/1/{kind}`: `{id, url}` of the new record. */
  async create(body: Create, o?: CallOptions): Promise<CreatedRecord> {
    validateCreate(this.kind, body);
    const path = this.#path();
    const created = jsonObject(await this.#send('POST', path, o, { json: body }), `POST ${path}`);
    if (typeof created.id !== 'string' && typeof created.id !== 'number') {
      throw new MalformedResponseError(`POST ${path}: the response has no id`);
    }
    return { ...created, id: String(created.id), url: typeof created.url === 'string' ? created.url : '' };
  }

  /** `PATCH /api/1/{kind}/{id}`: partial edit (e.g. only `enabled` and `rolloutPercentage`). */
  async update(id: string, edit: Edit, o?: CallOptions): Promise<void> {
    validateEdit(this.kind, edit);
    await this.#send('PATCH', this.#path(id), o, { json: edit });
  }

  /** `GET .../{id}/versions`: descending order. Version fields are not shown by the spec. */
  async listVersions(id: string, o?: CallOptions): Promise<VersionRecord[]> {
    return this.#getArray(this.#path(id, 'versions'), o);
  }

  /** `GET .../{id}/versions/{versionId}`. */
  async getVersion(id: string, versionId: string | number, o?: CallOptions): Promise<VersionRecord> {
    return this.#getObject(this.#path(id, 'versions', pathSegment('versionId', versionId)), o);
  }

  /** `GET .../{id}/variants`. */
  async listVariants(id: string, o?: CallOptions): Promise<Variant[]> {
    return this.#getArray(this.#path(id, 'variants'), o);
  }

  /** `GET .../{id}/variants/{variantKey}`. */
  async getVariant(id: string, variantKey: string, o?: CallOptions): Promise<Variant> {
    return this.#getObject(this.#variant(id, variantKey), o);
  }

  /** `POST .../{id}/variants`. */
  async createVariant(id: string, variant: Variant, o?: CallOptions): Promise<void> {
    validateVariant(variant, false);
    await this.#send('POST', this.#path(id, 'variants'), o, { json: variant });
  }

  /** `PATCH .../{id}/variants/{variantKey}` (the spec's sample request uses PATCH). */
  async updateVariant(id: string, variantKey: string, edit: VariantEdit, o?: CallOptions): Promise<void> {
    validateVariant(edit, true);
    await this.#send('PATCH', this.#variant(id, variantKey), o, { json: edit });
  }

  /** `DELETE .../{id}/variants/{variantKey}`. */
  async deleteVariant(id: string, variantKey: string, o?: CallOptions): Promise<void> {
    await this.#send('DELETE', this.#variant(id, variantKey), o);
  }

  /** `GET .../variants/{variantKey}/users`: inclusion objects (their shape is not shown). */
  async listVariantUsers(id: string, variantKey: string, o?: CallOptions): Promise<InclusionRecord[]> {
    return this.#getArray(this.#variant(id, variantKey, 'users'), o);
  }

  /** `GET .../variants/{variantKey}/cohorts`: cohort IDs. */
  async listVariantCohorts(id: string, variantKey: string, o?: CallOptions): Promise<string[]> {
    return this.#getArray(this.#variant(id, variantKey, 'cohorts'), o);
  }

  /** `POST .../variants/{variantKey}/users` with `{inclusions}` (user or device IDs). */
  async addVariantUsers(id: string, variantKey: string, inclusions: readonly string[], o?: CallOptions): Promise<void> {
    const max = this.kind === 'flags' ? MANAGEMENT_LIMITS.flagVariantInclusions : Number.POSITIVE_INFINITY;
    const list = requireStringArray('inclusions', inclusions, 1, max);
    await this.#send('POST', this.#variant(id, variantKey, 'users'), o, { json: { inclusions: list } });
  }

  /** `POST .../variants/{variantKey}/cohorts` with `{inclusions: [cohort ID]}`. */
  async addVariantCohorts(
    id: string,
    variantKey: string,
    cohortIds: readonly string[],
    o?: CallOptions,
  ): Promise<void> {
    const list = requireStringArray('inclusions', cohortIds, 1);
    await this.#send('POST', this.#variant(id, variantKey, 'cohorts'), o, { json: { inclusions: list } });
  }

  /** `DELETE .../variants/{variantKey}/users/{userIndex}` (what the index indexes is not shown). */
  async removeVariantUser(id: string, variantKey: string, userIndex: string | number, o?: CallOptions): Promise<void> {
    await this.#send('DELETE', this.#variant(id, variantKey, 'users', pathSegment('userIndex', userIndex)), o);
  }

  /** `DELETE .../variants/{variantKey}/users`: removes every user inclusion of the variant. */
  async removeAllVariantUsers(id: string, variantKey: string, o?: CallOptions): Promise<void> {
    await this.#send('DELETE', this.#variant(id, variantKey, 'users'), o);
  }

  /** `DELETE .../variants/{variantKey}/bulk-delete-users` with `{users}`, 1 to 100. */
  async bulkRemoveVariantUsers(
    id: string,
    variantKey: string,
    users: readonly string[],
    o?: CallOptions,
  ): Promise<void> {
    const list = requireStringArray('users', users, 1, MANAGEMENT_LIMITS.bulkDelete);
    await this.#send('DELETE', this.#variant(id, variantKey, 'bulk-delete-users'), o, { json: { users: list } });
  }

  /** `DELETE .../variants/{variantKey}/bulk-delete-cohorts` with `{users: [cohort ID]}` (sic), 1 to 100. */
  async bulkRemoveVariantCohorts(
    id: string,
    variantKey: string,
    cohortIds: readonly string[],
    o?: CallOptions,
  ): Promise<void> {
    const list = requireStringArray('users', cohortIds, 1, MANAGEMENT_LIMITS.bulkDelete);
    await this.#send('DELETE', this.#variant(id, variantKey, 'bulk-delete-cohorts'), o, { json: { users: list } });
  }

  /** `GET .../{id}/deployments` (deployment fields are not shown). */
  async listDeployments(id: string, o?: CallOptions): Promise<DeploymentRecord[]> {
    return this.#getArray(this.#path(id, 'deployments'), o);
  }

  /** `POST .../{id}/deployments` with `{deployments: [deploymentId]}`. */
  async addDeployments(id: string, deploymentIds: readonly string[], o?: CallOptions): Promise<void> {
    const list = requireStringArray('deployments', deploymentIds, 1);
    await this.#send('POST', this.#path(id, 'deployments'), o, { json: { deployments: list } });
  }

  /** `DELETE .../{id}/deployments/{deploymentId}`. */
  async removeDeployment(id: string, deploymentId: string, o?: CallOptions): Promise<void> {
    requireString('deploymentId', deploymentId);
    await this.#send('DELETE', this.#path(id, 'deployments', pathSegment('deploymentId', deploymentId)), o);
  }
}

/** Experiments: `{base_url}/api/1/experiments`. Editing a web-experimentation / guides-and-surveys experiment is a 405 ApiError. */
export class ExperimentsClient extends ManagementResourceClient<ExperimentRecord, ExperimentEdit, ExperimentCreate> {
  protected readonly kind = 'experiments' as const;
}

/** Feature flags: `{base_url}/api/1/flags`. More than 2,000 user inclusions on a variant is a 400 ApiError. */
export class FlagsClient extends ManagementResourceClient<FlagRecord, FlagEdit, FlagCreate> {
  protected readonly kind = 'flags' as const;
}
