/**
 * ISO 8601 timestamps as the sandbox reads them: `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]`, optionally a zone
 * (`Z`, `+HH:MM`, `+HHMM`, `+HH`). A timestamp without a zone designator is read as UTC.
 */
const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Epoch milliseconds, or null when the text is not such a timestamp. */
export function parseIsoTime(text: string): number | null {
  const m = ISO_RE.exec(text);
  if (!m) return null;
  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m;
  const y = Number(ys);
  const mo = Number(mos);
  const d = Number(ds);
  const h = hs === undefined ? 0 : Number(hs);
  const mi = mis === undefined ? 0 : Number(mis);
  const s = ss === undefined ? 0 : Number(ss);
  const ms = frac === undefined ? 0 : Math.floor(Number('0.' + frac) * 1000);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  if (date.getUTCDate() !== d) return null; // 2026-02-31 and the like
  let offsetMin = 0;
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMin = sign * (oh * 60 + om);
  }
  return date.getTime() - offsetMin * 60_000;
}

/** `2026-11-20T09:00:00.000Z`; years outside 0..9999 are not produced by the sandbox. */
export function formatIsoUtc(ms: number): string {
  return new Date(ms).toISOString();
}

/** The same instant without a zone designator: `2026-11-20T09:00:00.000`. */
export function formatIsoNoZone(ms: number): string {
  return new Date(ms).toISOString().slice(0, -1);
}

/** `yyyymmddThhmmssZ` as in X-Amz-Date. */
export function formatAmzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function parseAmzDate(text: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isFinite(t) ? t : null;
}
