import type { Command } from 'commander';
import { verifyArchive, type VerifyOptions, type VerifyProblem, type VerifySummary } from '../../../src/archive.js';
import { DEFAULTS } from '../../../src/pipeline/defaults.js';
import { onRun } from '../../../src/pipeline/run.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import {
  addLimitFlags,
  addS3AccessFlags,
  archiveOf,
  limitsOf,
  positiveInt,
  withDefault,
  type LimitFlags,
  type S3ReadFlags,
} from '../flags.js';
import { counted, formatBytes, formatSeconds } from '../progress.js';

interface VerifyFlags extends S3ReadFlags, LimitFlags {
  concurrency?: number;
}

export function register(program: Command): Command {
  return addLimitFlags(
    addS3AccessFlags(
      program
        .command('verify')
        .description(
          "re-read an archive (a folder or s3://bucket/prefix) against its manifest: each archived replay's object, size, SHA-256, " +
            'events and checks, and stored outputs no entry names; exit 1 on any problem',
        )
        .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
        .option(
          '--concurrency <n>',
          withDefault('objects read at once', DEFAULTS.concurrency),
          positiveInt('--concurrency'),
        ),
    ),
    true,
  );
}

/** The flags of `verify` bound into `verifyArchive`'s options. */
export function optionsOf(f: Invocation<VerifyFlags>): VerifyOptions {
  return { ...archiveOf(f.args[0]!, f), ...limitsOf(f), concurrency: f.concurrency };
}

/** `verify <archive>`: one line per problem as it is found, then the summary; resolves with the exit code. */
export async function run(context: CliContext): Promise<number> {
  const options = optionsOf(flagsOf<VerifyFlags>(context));
  const cli = await context.openRun(options);
  try {
    const { reporter } = cli;
    const verification = verifyArchive(onRun(options, cli.run));
    for await (const problem of verification) reporter.log('error', problem.message, problemFields(problem));
    const summary = await verification.summary;
    reporter.final(summary.problems > 0 ? 'error' : 'info', summaryText(summary), summaryFields(summary));
    return summary.problems > 0 ? 1 : 0;
  } finally {
    await cli.close();
  }
}

function problemFields(p: VerifyProblem): Record<string, unknown> {
  return {
    event: 'problem',
    kind: p.kind,
    replay_id: p.replayId,
    key: p.key,
    expected: p.expected,
    actual: p.actual,
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
