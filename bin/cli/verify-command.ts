import type { S3SinkOptions } from '../../sinks/index.js';
import { verifyArchive, type VerifyProblem, type VerifySummary } from '../../src/archive-tools.js';
import { counted, formatBytes, formatSeconds } from './progress.js';
import type { Reporter } from './reporter.js';

export interface VerifyCommandOptions {
  s3: S3SinkOptions;
  concurrency: number;
  maxEventBytes: number;
  maxReplayBytes: number;
  fastPath: boolean;
  signal: AbortSignal;
}

/** `verify <archive>`: one line per problem as it is found, then the summary; resolves with the exit code. */
export async function runVerifyCommand(
  archive: string,
  options: VerifyCommandOptions,
  reporter: Reporter,
): Promise<number> {
  const verification = verifyArchive(archive, options);
  for await (const problem of verification) reporter.log('error', problem.message, problemFields(problem));
  const summary = await verification.summary;
  reporter.final(summary.problems > 0 ? 'error' : 'info', summaryText(summary), summaryFields(summary));
  return summary.problems > 0 ? 1 : 0;
}

function problemFields(p: VerifyProblem): Record<string, unknown> {
  return {
    event: 'problem',
    kind: p.kind,
    ...(p.replayId !== undefined ? { replay_id: p.replayId } : {}),
    ...(p.key !== undefined ? { key: p.key } : {}),
    ...(p.expected !== undefined ? { expected: p.expected } : {}),
    ...(p.actual !== undefined ? { actual: p.actual } : {}),
  };
}

function summaryFields(s: VerifySummary): Record<string, unknown> {
  const byKind = Object.fromEntries(Object.entries(s.byKind).filter(([, n]) => n > 0));
  return {
    event: 'summary',
    target: s.target,
    entries: s.entries,
    replays: s.replays,
    verified: s.verified,
    intact: s.intact,
    not_ok: s.notOk,
    quarantined: s.quarantined,
    stored: s.stored,
    problems: s.problems,
    by_kind: byKind,
    events: s.events,
    bytes: s.bytes,
    seconds: s.seconds,
  };
}

function summaryText(s: VerifySummary): string {
  const kinds = Object.entries(s.byKind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k.replace(/_/g, ' ')} ${n}`);
  const problems = s.problems === 0 ? 'no problem' : `${counted(s.problems, 'problem')} (${kinds.join(', ')})`;
  return (
    `Verified ${s.target}: ${s.intact} of ${counted(s.verified, 'archived replay')} intact, ${problems}; ` +
    `${counted(s.notOk, 'replay')} in another state${s.quarantined > 0 ? ` (${s.quarantined} quarantined)` : ''}, ${counted(s.stored, 'stored output')}; ${counted(s.events, 'event')}, ${formatBytes(s.bytes)} read in ${formatSeconds(s.seconds)}`
  );
}
