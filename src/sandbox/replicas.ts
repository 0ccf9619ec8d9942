import { createHash } from 'node:crypto';
import type { SampleReplay } from './samples-index.js';
import { formatIsoNoZone, formatIsoUtc, parseIsoTime } from './timestamps.js';

/** A session replay record exactly as the list endpoint returns it. */
export interface ReplayRecordJson {
  replay_id: string;
  session_id: string;
  device_id: string;
  platform_id: number;
  start_time: string;
  end_time: string;
  retention_in_days: number;
}

/** Replica i starts this much earlier than replica i-1 (and replica 0 this much before its sample). */
export const REPLICA_SPACING_MS = 600_000;

/** Which replicas carry odd timestamps (deterministic; documented in docs/SANDBOX.md). */
export function replicaTimeShape(i: number): 'utc' | 'no-zone' | 'year-1970' | 'year-2120' {
  if (i % 50 === 13) return 'year-1970';
  if (i % 50 === 37) return 'year-2120';
  if (i % 10 === 4) return 'no-zone';
  return 'utc';
}

function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Replica i (0-based) of the samples: based on sample i mod (number of samples), with its own device id (a UUID
 * derived from i), a session id equal to its nominal start in ms (REPLICA_SPACING_MS × (i+1) before the sample's),
 * platform_id = sample's + (floor(i / number of samples) mod 3), the sample's duration and retention, and the time shape of replicaTimeShape(i).
 */
export function makeReplica(
  i: number,
  samples: readonly SampleReplay[],
): { record: ReplayRecordJson; sample: SampleReplay } {
  const sample = samples[i % samples.length]!;
  const baseStart = parseIsoTime(sample.start_time) ?? 0;
  const baseEnd = parseIsoTime(sample.end_time) ?? baseStart;
  const duration = Math.max(0, baseEnd - baseStart);
  const nominal = baseStart - (i + 1) * REPLICA_SPACING_MS;
  const deviceId = uuidFrom(`replica/${i}/${sample.device_id}`);
  const sessionId = String(nominal);
  const shape = replicaTimeShape(i);
  // When its times start, and how they are written.
  const from = shape === 'year-1970' ? i * 1000 : shape === 'year-2120' ? Date.UTC(2120, 0, 1) + i * 1000 : nominal;
  const format = shape === 'no-zone' ? formatIsoNoZone : formatIsoUtc;
  return {
    sample,
    record: {
      replay_id: `${deviceId}/${sessionId}`,
      session_id: sessionId,
      device_id: deviceId,
      platform_id: sample.platform_id + (Math.floor(i / samples.length) % 3),
      start_time: format(from),
      end_time: format(from + duration),
      retention_in_days: sample.retention_in_days,
    },
  };
}
