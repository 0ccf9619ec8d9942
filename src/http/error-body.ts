/**
 * Reading an error response's body into fields of the typed error. The body is hostile: any shape is accepted
 * and anything that does not match gives no fields (the redacted excerpt stays on the error either way).
 *
 * Shapes read (spec documents 2 and 3): taxonomy `{success:false, errors:[{message}]}`; dashboard error objects
 * and 429 bodies, whose exact shape is "not shown": `{error: "..."}`, `{error: {message}}` or `{message}`.
 */
export interface ErrorBodyFields {
  /** Messages the server gave, in order (at most 10, each at most 300 characters). */
  messages: string[];
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.slice(0, 300) : undefined;
}

function messageOf(v: unknown): string | undefined {
  if (typeof v === 'string') return text(v);
  if (v && typeof v === 'object' && !Array.isArray(v))
    return text((v as Record<string, unknown>).message) ?? text((v as Record<string, unknown>).error);
  return undefined;
}

export function parseErrorBody(excerpt: string): ErrorBodyFields {
  let body: unknown;
  try {
    body = JSON.parse(excerpt);
  } catch {
    return { messages: [] };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { messages: [] };
  const o = body as Record<string, unknown>;
  const messages: string[] = [];
  if (Array.isArray(o.errors))
    for (const e of o.errors.slice(0, 10)) {
      const m = messageOf(e);
      if (m) messages.push(m);
    }
  // `{error: "rate_limited", message: "too many concurrent requests"}`: the code and the readable text, both kept.
  for (const m of [messageOf(o.error), text(o.message)])
    if (m && !messages.includes(m) && messages.length < 10) messages.push(m);
  return { messages };
}

/** Which limit a 429 names: the first message that mentions a limit or a rate (the server's own words). */
export function limitNamed(messages: readonly string[]): string | undefined {
  return messages.find((m) => /limit|rate|cost|concurren/i.test(m));
}
