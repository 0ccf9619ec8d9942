/**
 * Taxonomy API (spec document 2) under `{analytics_url}/api/2/taxonomy`: HTTP Basic auth, form-encoded bodies,
 * family `taxonomy` (the project's concurrent cost limit is 4; GET costs 1, writes 2).
 */
import type { Transport } from '../http/transport.js';
import { TaxonomyCaller } from './taxonomy-call.js';
import { TaxonomyCategories, TaxonomyEventTypes } from './taxonomy-events.js';
import { TaxonomyEventProperties, TaxonomyGroupProperties, TaxonomyUserProperties } from './taxonomy-properties.js';

export class TaxonomyClient {
  readonly categories: TaxonomyCategories;
  readonly eventTypes: TaxonomyEventTypes;
  readonly eventProperties: TaxonomyEventProperties;
  readonly userProperties: TaxonomyUserProperties;
  readonly groupProperties: TaxonomyGroupProperties;

  constructor(transport: Transport) {
    const caller = new TaxonomyCaller(transport);
    this.categories = new TaxonomyCategories(caller);
    this.eventTypes = new TaxonomyEventTypes(caller);
    this.eventProperties = new TaxonomyEventProperties(caller);
    this.userProperties = new TaxonomyUserProperties(caller);
    this.groupProperties = new TaxonomyGroupProperties(caller);
  }
}
