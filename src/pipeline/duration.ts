/** Parses durations like `24h`, `90m`, `7d`, `30s`, `500ms`, `1h30m` or `0` into milliseconds. */

import { ReplayExportError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export class DurationError extends ReplayExportError {
  constructor(readonly input: string) {
    super(`not a duration: ${JSON.stringify(input)} (use e.g. 24h, 90m, 7d, 0)`, {
      code: 'BAD_DURATION',
      category: 'usage',
    });
  }
}

export function parseDuration(input: string): number {
  const text = input.trim().toLowerCase();
  if (text === '0') return 0;
  if (text.length === 0) throw new DurationError(input);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let pos = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    pos = re.lastIndex;
  }
  if (pos !== text.length || !Number.isFinite(total)) throw new DurationError(input);
  return Math.round(total);
}

/** `ms` in the largest of h, m, s, ms that holds it whole, as `parseDuration` reads it: `24h`, `5m`, `90s`, `0`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const unit of ['h', 'm', 's'] as const) {
    const size = UNIT_MS[unit]!;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
