/**
 * Redaction of secrets from anything that may reach an error message or a log line:
 * presigned URL signatures, `api_key` parameters, credentials echoed back in a response body.
 */

/** Query parameter names whose values are never shown (compared case-insensitively). */
const SENSITIVE_PARAMS: readonly string[] = [
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

const REDACTED = '[REDACTED]';

const SENSITIVE_SET = new Set(SENSITIVE_PARAMS);

/** `name=value` pairs of sensitive parameters anywhere in free text (URLs inside bodies, error strings). */
const PARAM_IN_TEXT = new RegExp(
  `([?&;\\s"']|^)(${SENSITIVE_PARAMS.map((p) => p.replace(/[-]/g, '\\-')).join('|')})(=|%3D)([^&\\s"'<>]*)`,
  'gi',
);

/** A URL's path plus its query with sensitive values replaced; no scheme, host or credentials. */
export function redactedPath(url: URL | string): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  if (u.search.length <= 1) return u.pathname;
  const parts = [...u.searchParams].map(
    ([name, value]) =>
      `${encodeURIComponent(name)}=${SENSITIVE_SET.has(name.toLowerCase()) ? REDACTED : encodeURIComponent(value)}`,
  );
  return `${u.pathname}?${parts.join('&')}`;
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
 * Every form in which this tool could write `secret` into a message or a log line, longest first: as it is,
 * JSON-escaped (once, and twice for a message quoted inside a JSON log line), URL-encoded (as a path or query
 * component, as an HTML form value, and by `encodeURI`), and base64 of the secret alone (standard, unpadded and
 * URL-safe). The base64 of `apiKey:secretKey` (the Basic header) is a secret of its own (see `secretsOf`).
 */
export function secretForms(secret: string): string[] {
  if (secret.length === 0) return [];
  const forms = new Set<string>([secret]);
  const once = JSON.stringify(secret).slice(1, -1);
  forms.add(once);
  forms.add(JSON.stringify(once).slice(1, -1));
  for (const encode of [encodeURIComponent, encodeURI]) {
    try {
      forms.add(encode(secret));
    } catch {
      // A lone surrogate cannot be URL-encoded, so the tool never wrote it that way.
    }
  }
  forms.add(new URLSearchParams({ v: secret }).toString().slice(2));
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  forms.add(base64);
  forms.add(base64.replace(/=+$/, ''));
  forms.add(Buffer.from(secret, 'utf8').toString('base64url'));
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * The shortest secret scrubbed from text. A shorter one is no credential the platform issues (its keys are 32 hex
 * digits), and matching it would mangle ordinary words (a key `e` turned every `error` into `[REDACTED]rror`).
 */
const MIN_SECRET_LENGTH = 8;

/**
 * Removes secrets from free text: sensitive `name=value` pairs and every literal secret given (API key, secret key,
 * management key, an Authorization header value and its base64 part) of at least `MIN_SECRET_LENGTH` characters, in
 * every form `secretForms` lists, wherever it stands whole: not inside a longer run of letters and digits.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  const out = text.replace(
    PARAM_IN_TEXT,
    (_m, lead: string, name: string, eq: string) => `${lead}${name}${eq}${REDACTED}`,
  );
  const forms = secrets.flatMap((s) => (s !== undefined && s.length >= MIN_SECRET_LENGTH ? secretForms(s) : []));
  if (forms.length === 0) return out;
  // One pass, longest form first at each position, so that no replacement is matched again.
  forms.sort((a, b) => b.length - a.length);
  return out.replace(
    new RegExp(`(?<![A-Za-z0-9])(?:${forms.map(escapeRegExp).join('|')})(?![A-Za-z0-9])`, 'g'),
    REDACTED,
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** At most `max` characters of a body, redacted, with a marker when cut. */
export function bodyExcerpt(body: string, secrets: readonly (string | undefined)[] = [], max = 500): string {
  const clean = redactText(body, secrets);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
