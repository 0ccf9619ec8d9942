/**
 * Hosts per data-residency region for the spec's address placeholders.
 *
 * Sources (the platform's public documentation, amplitude.com/docs, read while writing this file):
 * - analytics (`{analytics_url}`: dashboard REST, session replay, get user mappings, taxonomy):
 *   "Dashboard REST API" → Regions: default https://amplitude.com, EU https://analytics.eu.amplitude.com;
 *   "Session Replay API" → EU data residency: https://analytics.eu.amplitude.com/api/1/session-replays
 *   (an older revision of that page says https://eu.amplitude.com; we follow the current page, which agrees
 *   with the Dashboard REST and User Mapping pages: "the same hosts as other Analytics REST APIs").
 *   `analytics.amplitude.com` is the web application, not an API host (documented on the same pages).
 * - api (`{api_url}`: map, unmap, attribution): "User Mapping (Aliasing) API" and "Attribution API" → Regions:
 *   default https://api.amplitude.com, EU https://api.eu.amplitude.com.
 * - ingest (`{ingest_url}`: group identify): "Group Identify API" → Regions: default https://api2.amplitude.com,
 *   EU https://api.eu.amplitude.com.
 * - feedback (`{feedback_url}`: AI feedback ingestion): "AI Feedback API" → EU data residency:
 *   default https://amplitude.com, EU https://eu.amplitude.com.
 * - base (spec doc 1 `{base_url}` / `{eu_base_url}`: experiment and flag management):
 *   "Experiment Management API" pages → default https://experiment.amplitude.com,
 *   EU https://experiment.eu.amplitude.com.
 * Presigned object-storage URLs carry their own host and are used as given.
 */

import { ConfigError, InternalError } from '../errors.js';

export type Region = 'us' | 'eu';

/** Which address placeholder of the spec a request uses. */
export type HostKind = 'analytics' | 'api' | 'ingest' | 'feedback' | 'base';

export const REGION_HOSTS: Readonly<Record<Region, Readonly<Record<HostKind, string>>>> = {
  us: {
    analytics: 'https://amplitude.com',
    api: 'https://api.amplitude.com',
    ingest: 'https://api2.amplitude.com',
    feedback: 'https://amplitude.com',
    base: 'https://experiment.amplitude.com',
  },
  eu: {
    analytics: 'https://analytics.eu.amplitude.com',
    api: 'https://api.eu.amplitude.com',
    ingest: 'https://api.eu.amplitude.com',
    feedback: 'https://eu.amplitude.com',
    base: 'https://experiment.eu.amplitude.com',
  },
};

/**
 * Normalises an `endpoint` override: an absolute http(s) URL, no query, no fragment, no credentials;
 * a trailing slash is dropped so paths join cleanly. A path prefix (a proxy mounted under /x) is kept.
 */
export function normaliseEndpoint(endpoint: string): string {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    throw new ConfigError(`endpoint must be an absolute URL (got ${JSON.stringify(endpoint.slice(0, 100))})`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(`endpoint must use http or https (got ${u.protocol})`);
  if (u.username || u.password) throw new ConfigError('endpoint must not contain credentials');
  if (u.search || u.hash) throw new ConfigError('endpoint must not contain a query or fragment');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** Base URL (no trailing slash) for a host kind: the endpoint override when given, else the region's host. */
export function baseUrlFor(kind: HostKind, region: Region, endpoint?: string): string {
  if (endpoint) return normaliseEndpoint(endpoint);
  const hosts = REGION_HOSTS[region] as (typeof REGION_HOSTS)[Region] | undefined;
  if (hosts === undefined)
    throw new ConfigError(`region must be "us" or "eu", got ${JSON.stringify(region) ?? String(region)}`);
  const host = hosts[kind];
  if (!host) throw new InternalError(`unknown host kind ${JSON.stringify(kind)}`);
  return host;
}
