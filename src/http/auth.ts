/**
 * The three authentication styles of the platform's APIs.
 * - `basic`: HTTP Basic, project API key as user name, secret key as password
 *   (dashboard, session replay, feedback ingestion, get mappings, taxonomy — spec docs 2 and 3).
 * - `bearer`: `Authorization: Bearer <management API key>` (experiment and flag management — spec doc 1).
 * - `api_key`: the project API key as the `api_key` query or form parameter (map, unmap, group identify,
 *   attribution — spec doc 2).
 * - `none`: nothing (presigned object-storage URLs).
 */

import { ReplayExportError } from '../errors.js';

export type AuthStyle = 'basic' | 'bearer' | 'api_key' | 'none';

export interface Credentials {
  /** Project API key (Basic user name; `api_key` parameter). */
  apiKey?: string;
  /** Project secret key (Basic password). */
  secretKey?: string;
  /** Experiment management API key (Bearer). */
  managementKey?: string;
}

/** Credentials a request needs were not configured (category `auth`: every such request would fail). */
export class MissingCredentialsError extends ReplayExportError {
  constructor(style: AuthStyle, missing: string) {
    super(`${style} authentication needs ${missing}, which was not configured`, {
      code: 'MISSING_CREDENTIALS',
      category: 'auth',
    });
  }
}

/** The Authorization header value for a style, or undefined for styles that do not use the header. */
export function authorizationHeader(style: AuthStyle, creds: Credentials): string | undefined {
  switch (style) {
    case 'basic':
      if (!creds.apiKey || !creds.secretKey) throw new MissingCredentialsError(style, 'an API key and a secret key');
      return `Basic ${Buffer.from(`${creds.apiKey}:${creds.secretKey}`, 'utf8').toString('base64')}`;
    case 'bearer':
      if (!creds.managementKey) throw new MissingCredentialsError(style, 'a management API key');
      return `Bearer ${creds.managementKey}`;
    case 'api_key':
      if (!creds.apiKey) throw new MissingCredentialsError(style, 'an API key');
      return undefined;
    case 'none':
      return undefined;
  }
}

/** Every string that must never appear in an error or a log line for these credentials. */
export function secretsOf(creds: Credentials): string[] {
  const out: string[] = [];
  if (creds.secretKey) out.push(creds.secretKey);
  if (creds.managementKey) out.push(creds.managementKey);
  if (creds.apiKey) out.push(creds.apiKey);
  if (creds.apiKey && creds.secretKey) {
    out.push(Buffer.from(`${creds.apiKey}:${creds.secretKey}`, 'utf8').toString('base64'));
  }
  return out;
}
