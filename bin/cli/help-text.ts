import { Help, Option, type Command } from 'commander';
import { VERSION_FLAGS } from './version.js';

/** The version flag as help shows it (parsed by `versionRequested`, not by commander: see version.ts). */
const VERSION_OPTION = new Option(VERSION_FLAGS, 'print the version and exit');

/**
 * Help as gh shows it: each command's help lists the global options it accepts, and the top-level help the version
 * flag. Set on the program before its commands are added (they inherit it).
 */
export function configureHelpText(program: Command): Command {
  return program.configureHelp({
    showGlobalOptions: true,
    visibleOptions(this: Help, cmd: Command): Option[] {
      const options = Help.prototype.visibleOptions.call(this, cmd);
      if (cmd.parent === null) options.splice(Math.max(0, options.length - 1), 0, VERSION_OPTION);
      return options;
    },
  });
}

/** Examples shown after a command's help, one `$ command` line each with what it does. */
export function addExamples(cmd: Command, examples: readonly (readonly [string, string])[]): Command {
  const lines = examples.map(([line, what]) => `  # ${what}\n  $ ${line}`);
  return cmd.addHelpText('after', `\nExamples:\n${lines.join('\n\n')}\n`);
}

/** Examples of each command (ids shortened only where a real one would not fit). */
export const EXAMPLES = {
  list: [
    ['replay-export list --since 24h', 'replays of the last 24 hours, one JSON record a line'],
    [
      'replay-export list --user 12345 --since 2026-11-01 --until 2026-11-07',
      "one user's replays of a week (dates are whole days, UTC)",
    ],
    ['replay-export --sandbox list --max 3', 'three records from the embedded sandbox'],
  ],
  export: [
    [
      'replay-export export 6c3e4a0f-9a3b-4c1e-8f27-0d5b2a1c9e44/1795308171251 --out replays',
      'one replay into ./replays',
    ],
    ['replay-export export <replay_id> --out - --format ndjson | jq .type', 'one replay to stdout, one event a line'],
    [
      'replay-export export <id1> <id2> --out s3://bucket/replays --format html',
      'two replays to S3 as offline player pages',
    ],
  ],
  archive: [
    ['replay-export archive --out replays', 'every replay; run again to resume or pick up new ones'],
    ['replay-export archive --out replays --since 7d --dry-run', 'what a run over the last week would export'],
    [
      'replay-export archive --out s3://bucket/replays --shard 0/4 --concurrency 8',
      'the first of four parallel jobs (shards 0/4 to 3/4)',
    ],
    [
      'replay-export archive --out s3://bucket/replays --shard 0/4 --balance nightly-2026-11-27',
      'the same, the four sharing out the night so they end together',
    ],
  ],
  forget: [
    [
      'replay-export forget --out replays --user 12345 --reason "erasure request 2026-118"',
      "a user's outputs gone, and never archived again",
    ],
    ['replay-export forget --out s3://bucket/replays --replay <replay_id>', 'one replay out of an S3 archive'],
  ],
  verify: [
    [
      'replay-export verify replays',
      're-read every archived replay of ./replays against its manifest; exit 1 on any problem',
    ],
    ['replay-export verify s3://bucket/replays --log-format json', 'the same for S3, one JSON line per problem'],
  ],
  decode: [
    ['replay-export decode 1.gz 2.gz --out replay.json', 'two downloaded files of one replay into one JSON array'],
    ['replay-export decode file.json --version 2 | jq length', 'a version 2 file to stdout'],
  ],
  sandbox: [
    ['replay-export sandbox', 'run a local Session Replay API; paste the printed export line in another shell'],
    [
      'replay-export sandbox --latency 200 --faults rateLimitEvery=5,serverErrorEvery=7',
      'a slow API that answers 429 and 503 now and then',
    ],
  ],
  completion: [
    ['source <(replay-export completion bash)', 'complete commands and flags in this bash session'],
    ['replay-export completion zsh > "${fpath[1]}/_replay-export"', 'install for zsh (then restart it)'],
  ],
} as const satisfies Record<string, readonly (readonly [string, string])[]>;
