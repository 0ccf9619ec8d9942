/**
 * Redaction of secrets from anything that may reach an error message or a log line:
 * presigned URL signatures, `api_key` parameters, credentials echoed back in a response body.
 */

/** Query parameter names whose values are never shown (compared case-insensitively). */
export const SENSITIVE_PARAMS: readonly string[] = [
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'signature',
  'sig',
  'api_key',
  'apikey',
  'secret',
  'secret_key',
  'token',
  'access_token',
  'key-pair-id',
  'policy',
  'x-goog-signature',
  'x-goog-credential',
];

export const REDACTED = '[REDACTED]';

const SENSITIVE_SET = new Set(SENSITIVE_PARAMS);

function isSensitiveName(name: string): boolean {
  return SENSITIVE_SET.has(name.toLowerCase());
}

/** `name=value` pairs of sensitive parameters anywhere in free text (URLs inside bodies, error strings). */
const PARAM_IN_TEXT = new RegExp(
  `([?&;\\s"']|^)(${SENSITIVE_PARAMS.map((p) => p.replace(/[-]/g, '\\-')).join('|')})(=|%3D)([^&\\s"'<>]*)`,
  'gi',
);

/** A URL's path plus its query with sensitive values replaced; no scheme, host or credentials. */
export function redactedPath(url: URL | string): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  let out = u.pathname;
  if (u.search.length > 1) {
    const parts: string[] = [];
    for (const [name, value] of u.searchParams) {
      parts.push(`${encodeURIComponent(name)}=${isSensitiveName(name) ? REDACTED : encodeURIComponent(value)}`);
    }
    out += `?${parts.join('&')}`;
  }
  return out;
}

/** A full URL safe to show: origin + redacted path; user info removed. */
export function redactUrl(url: URL | string): string {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return redactText(String(url));
  }
  return `${u.protocol}//${u.host}${redactedPath(u)}`;
}

/** The decoded path of a URL (no query): the stable, safe name of a presigned object. */
export function urlKey(url: URL | string): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  try {
    return decodeURIComponent(u.pathname);
  } catch {
    return u.pathname;
  }
}

/**
 * Removes secrets from free text: sensitive `name=value` pairs and every literal secret given
 * (API key, secret key, management key, an Authorization header value and its base64 part).
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text.replace(PARAM_IN_TEXT, (_m, lead: string, name: string, eq: string) => `${lead}${name}${eq}${REDACTED}`);
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  }
  return out;
}

/** At most `max` characters of a body, redacted, with a marker when cut. */
export function bodyExcerpt(body: string, secrets: readonly (string | undefined)[] = [], max = 500): string {
  const clean = redactText(body, secrets);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
