/**
 * Session length bins (spec document 3): custom bins from `timeHistogramConfigBinMin`, `…Max` and `…TimeUnit` together
 * (with `…BinSize` bins of that width, without it 10 equal bins the service picks); when they are missing or invalid,
 * the default bins in milliseconds. The longest session is 1 day.
 */
import { REPLAY } from '../spec-values.js';

const DAY_MS = REPLAY.maxSessionMs;
const UNITS: Readonly<Record<string, { ms: number; suffix: string }>> = {
  seconds: { ms: 1000, suffix: 's' },
  minutes: { ms: 60_000, suffix: 'm' },
  hours: { ms: 3_600_000, suffix: 'h' },
};
const DEFAULT_EDGES = [0, 3000, 10_000, 30_000, 60_000, 180_000, 600_000, 1_800_000, 3_600_000, 86_400_000];
/** Most custom bins served. */
const MAX_BINS = 1000;

/** The bucket labels, `[lo, hi)` with the unit (`ms` for the default bins). */
export function sessionBins(q: URLSearchParams): string[] {
  const custom = customEdges(q);
  const { edges, suffix } = custom ?? { edges: DEFAULT_EDGES, suffix: 'ms' };
  return edges.slice(0, -1).map((lo, i) => `[${lo}${suffix}, ${edges[i + 1]}${suffix})`);
}

function num(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  return v === null || v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);
}

function customEdges(q: URLSearchParams): { edges: number[]; suffix: string } | undefined {
  const min = num(q, 'timeHistogramConfigBinMin');
  const max = num(q, 'timeHistogramConfigBinMax');
  const unit = UNITS[q.get('timeHistogramConfigBinTimeUnit') ?? ''];
  if (min === undefined || max === undefined || !unit || min < 0 || max <= min || max * unit.ms > DAY_MS)
    return undefined;
  const given = num(q, 'timeHistogramConfigBinSize');
  const size = given !== undefined && given > 0 && given <= max - min ? given : (max - min) / 10;
  const count = Math.ceil((max - min) / size - 1e-9);
  if (count > MAX_BINS) return undefined;
  const edges = Array.from({ length: count + 1 }, (_, i) => Math.min(max, Math.round((min + i * size) * 1000) / 1000));
  return { edges, suffix: unit.suffix };
}
