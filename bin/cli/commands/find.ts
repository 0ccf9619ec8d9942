import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { CatalogueQuery, CatalogueRow, FindOptions } from '../../../src/archive.js';
import { stripUndefined } from '../../../src/http/options.js';
import { onRun } from '../../../src/pipeline/run.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import { addS3AccessFlags, archiveOf, durationFlag, positiveInt, usage, type S3ReadFlags } from '../flags.js';
import { type FindFormat, formatRow, type IdEnd, idRefusal, tableLine } from '../find-output.js';
import type { Reporter } from '../reporter.js';
import { DataOutput } from '../terminal-output.js';

interface FindFlags extends S3ReadFlags {
  search?: string;
  url?: string;
  user?: string;
  device?: string;
  session?: string;
  errors?: boolean;
  rageClicks?: boolean;
  deadClicks?: boolean;
  failedRequests?: boolean;
  status?: string;
  since?: string;
  until?: string;
  minDuration?: string;
  maxDuration?: string;
  sort?: string;
  max?: number;
  format?: string;
  null?: boolean;
}

const FORMATS: readonly string[] = ['table', 'ndjson', 'ids'] satisfies FindFormat[];

export function register(program: Command): Command {
  return addS3AccessFlags(
    program
      .command('find')
      .description(
        "find replays in an archive (a folder or s3://bucket/prefix) by what happened in them, from the archive's catalogue: NDJSON when piped, a table on a terminal",
      )
      .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
      .option('--search <words>', 'words that start words of the id, user, page URLs or first error message')
      .option('--url <text>', 'a page URL visited holds this text')
      .option('--user <platform_id>', 'the platform user id, exactly')
      .option('--device <text>', 'the device part of the id holds this text')
      .option('--session <text>', 'the session part of the id holds this text')
      .option('--errors', 'with console errors')
      .option('--rage-clicks', 'with rage clicks')
      .option('--dead-clicks', 'with dead clicks')
      .option('--failed-requests', 'with failed network requests')
      .option('--status <status>', 'ok, failed, quarantined, empty, skipped or forgotten')
      .option('--since <when>', 'started at or after: a duration ago (7d, 12h) or a date/time (2026-11-01)')
      .option('--until <when>', 'started before: a duration ago or a date/time')
      .option('--min-duration <duration>', 'at least this long (90s, 5m)')
      .option('--max-duration <duration>', 'at most this long')
      .option(
        '--sort <column>',
        'start, duration, active, pages, clicks, rage, dead, errors, failed, events, bytes, id, user or status; - in front: largest first (default -start)',
      )
      .option('--max <n>', 'at most this many replays', positiveInt('--max'))
      .option(
        '--format <format>',
        'table, ndjson or ids (one replay id a line) (default: table on a terminal, else ndjson)',
        (v: string) => {
          if (!FORMATS.includes(v)) throw new InvalidArgumentError('--format must be table, ndjson or ids');
          return v;
        },
      )
      .option('-0, --null', 'with --format ids: each id ends in NUL, not a line break (for xargs -0)'),
  );
}

/** `--since`/`--until`: a duration before `now`, or a date (UTC midnight) or ISO time. */
function when(name: string, value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(ms)) usage(`${name}: not a date: ${value}`);
    return ms;
  }
  return now - durationFlag(name, value)!;
}

const STATUSES = ['ok', 'failed', 'quarantined', 'empty', 'skipped', 'forgotten'];

/** The flags as the catalogue's query. */
export function queryOf(opts: FindFlags, now: number): CatalogueQuery {
  if (opts.status !== undefined && !STATUSES.includes(opts.status))
    usage(`--status must be one of ${STATUSES.join(', ')}`);
  return stripUndefined({
    text: opts.search,
    url: opts.url,
    user: opts.user,
    device: opts.device,
    session: opts.session,
    errors: opts.errors,
    rageClicks: opts.rageClicks,
    deadClicks: opts.deadClicks,
    failedRequests: opts.failedRequests,
    status: opts.status as CatalogueQuery['status'],
    from: when('--since', opts.since, now),
    to: when('--until', opts.until, now),
    minDurationMs: durationFlag('--min-duration', opts.minDuration),
    maxDurationMs: durationFlag('--max-duration', opts.maxDuration),
    sort: opts.sort,
  });
}

/** The flags of `find` bound into `findReplays`' options (the catalogue's build is told through the reporter). */
export function optionsOf(f: Invocation<FindFlags>, now: number): FindOptions {
  return { ...archiveOf(f.args[0]!, f), query: queryOf(f, now), max: f.max };
}

/** `--format`, else a table on a terminal and NDJSON elsewhere. */
function formatOf(flags: FindFlags, terminal: boolean): FindFormat {
  return (flags.format ?? (terminal ? 'table' : 'ndjson')) as FindFormat;
}

/** What ends each id of `--format ids`: NUL with `--null`, which goes with no other format. */
function idEndOf(flags: FindFlags, format: FindFormat): IdEnd {
  if (flags.null !== true) return '\n';
  if (format !== 'ids') usage('--null goes with --format ids (each id NUL-terminated, for xargs -0)');
  return '\0';
}

/**
 * Writes `rows` to `out` in `format`; an id `--format ids` cannot write as it is (`idRefusal`) is left out and said
 * on stderr, one error line each. Returns how many were left out.
 */
async function writeRows(
  rows: AsyncIterable<CatalogueRow>,
  out: DataOutput,
  how: { format: FindFormat; end: IdEnd; reporter: Reporter },
): Promise<{ found: number; refused: number }> {
  let found = 0;
  let refused = 0;
  for await (const row of rows) {
    found++;
    const refusal = how.format === 'ids' ? idRefusal(row.id, how.end) : undefined;
    if (refusal === undefined) await out.write(formatRow(row, how.format, how.end));
    else {
      refused++;
      how.reporter.log('error', refusal, { event: 'id_not_written', replay_id: row.id });
    }
  }
  return { found, refused };
}

export async function run(context: CliContext): Promise<number> {
  const flags = flagsOf<FindFlags>(context);
  const options = optionsOf(flags, Date.now());
  const format = formatOf(flags, (context.stdout as { isTTY?: boolean }).isTTY === true);
  const end = idEndOf(flags, format);
  const cli = await context.openRun(options);
  try {
    const { findReplays } = await import('../../../src/archive.js');
    const onBuild = (r: { rows: number; ms: number }): void =>
      cli.reporter.log('info', `catalogue built: ${r.rows} replays in ${(r.ms / 1000).toFixed(1)} s`, {
        event: 'catalogued',
        rows: r.rows,
        ms: Math.round(r.ms),
      });
    const rows = findReplays({ ...onRun(options, cli.run), catalogue: { onBuild } });
    // What a recording holds (its URLs, error messages, even its id) reaches a terminal as text only.
    const out = new DataOutput(context.stdout, format === 'ndjson' ? 'json' : 'text');
    if (format === 'table') await out.write(`${tableLine(undefined)}\n`);
    const { found, refused } = await writeRows(rows, out, { format, end, reporter: cli.reporter });
    await out.end();
    if (format === 'table') cli.reporter.log('info', `${found} replays`, { event: 'found', count: found });
    // An id left out is one replay the pipe did not get: exit 1, as a run with a failed replay (README "Exit codes").
    return refused > 0 ? 1 : 0;
  } finally {
    await cli.close();
  }
}
