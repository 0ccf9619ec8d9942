const DAY_MS = 86_400_000;
/** Dates outside this range are treated as unreadable (a garbage start time must never crash an archive). */
const MIN_MS = Date.UTC(1970, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31);

/**
 * When the platform deletes a replay: start time + retention_in_days. `undefined` when either is unusable.
 */
export function expiresAtMs(startMs: number | null | undefined, retentionDays: unknown): number | undefined {
  if (typeof startMs !== 'number' || !Number.isFinite(startMs) || startMs < MIN_MS || startMs > MAX_MS) return undefined;
  if (typeof retentionDays !== 'number' || !Number.isFinite(retentionDays) || retentionDays < 0) return undefined;
  const at = startMs + retentionDays * DAY_MS;
  if (!Number.isFinite(at) || at > MAX_MS) return undefined;
  return at;
}

export function expiresAtIso(startMs: number | null | undefined, retentionDays: unknown): string | undefined {
  const at = expiresAtMs(startMs, retentionDays);
  return at === undefined ? undefined : new Date(at).toISOString();
}
