/** Times and text as the player shows them. */

/** `h:mm:ss` of a duration in milliseconds. */
export function fmt(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000)),
    h = Math.floor(s / 3600),
    m = Math.floor(s / 60) % 60;
  return h + ':' + String(m).padStart(2, '0') + ':' + String(s % 60).padStart(2, '0');
}

/** `text` cut to `n` characters, an ellipsis last when cut. */
export function clip(text: unknown, n: number): string {
  const s = String(text);
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** A date as `YYYY-MM-DD hh:mm:ss UTC`. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
}
