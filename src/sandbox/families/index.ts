/**
 * The API families the sandbox serves besides session replay: the one place they are registered. Each holds its own
 * in-memory state for the life of one sandbox.
 */
import type { RateLimits } from '../rate-limits.js';
import { AttributionFamily } from './attribution.js';
import { DashboardFamily } from './dashboard.js';
import type { FamilyRoute } from './family-route.js';
import { FeedbackFamily } from './feedback.js';
import { GroupIdentifyFamily } from './group-identify.js';
import { ManagementFamily } from './management.js';
import { TaxonomyFamily } from './taxonomy.js';
import { UserMappingFamily } from './user-mapping.js';

export type { FamilyRoute } from './family-route.js';
export type { StoredFeedbackItem } from './feedback.js';
export type { HeldAttribution } from './attribution.js';

export interface FamiliesSetup {
  /** The project API key (`api_key` auth of map, unmap, group identify and attribution). */
  apiKey: string;
  /** The sandbox's base URL (for the `url` a management create answers). */
  url: string;
  /** The sandbox clock (timestamps of management records; the 72-hour hold of attribution events). */
  now: () => number;
  /** The documented limits the taxonomy and dashboard families charge (rate-limits.ts). */
  limits: RateLimits;
}

export class SandboxFamilies {
  readonly feedback = new FeedbackFamily();
  readonly management: ManagementFamily;
  readonly userMapping: UserMappingFamily;
  readonly groupIdentify: GroupIdentifyFamily;
  readonly attribution: AttributionFamily;
  readonly taxonomy: TaxonomyFamily;
  readonly dashboard: DashboardFamily;
  readonly all: readonly FamilyRoute[];

  constructor(setup: FamiliesSetup) {
    const keys = { apiKey: setup.apiKey };
    this.management = new ManagementFamily(setup.url, setup.now);
    this.userMapping = new UserMappingFamily(keys, setup.limits);
    this.groupIdentify = new GroupIdentifyFamily(keys);
    this.attribution = new AttributionFamily(keys, setup.now);
    this.taxonomy = new TaxonomyFamily(setup.limits);
    this.dashboard = new DashboardFamily(setup.limits);
    this.all = [
      this.feedback,
      this.management,
      this.userMapping,
      this.groupIdentify,
      this.attribution,
      this.taxonomy,
      this.dashboard,
    ];
  }

  find(path: string, query: URLSearchParams): FamilyRoute | undefined {
    return this.all.find((f) => f.matches(path, query));
  }
}
