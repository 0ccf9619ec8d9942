import type { Command } from 'commander';
// Modules of their own rather than the package's entries: a command loads only what it uses (`decode` no client,
// no sandbox), and the sandbox is loaded only with `--sandbox`.
import type { Run } from '../../src/index.js';
import type { Region } from '../../src/clients/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { requireProjectKeys, resolveSettings, secretsOf, type PlatformOptions } from '../../src/cli/config.js';
import type { CliRun, GlobalFlags, RunRequest } from './context.js';
import type { Reporter, ReporterOptions } from './reporter.js';

/** What the run needs of the CLI's context. */
export interface RunHost {
  globals: GlobalFlags;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  command: Command;
  reporter(extra?: ReporterOptions): Reporter;
  addSecret(secret: string): void;
}

/** Opens a command's run (see `CliContext.openRun`). */
export async function openCliRun(host: RunHost, request: RunRequest = {}): Promise<CliRun> {
  const g = host.globals;
  const source = {
    env: host.env,
    cli: {
      sandbox: g.sandbox,
      ...(request.shard !== undefined ? { shard: request.shard } : {}),
      ...(request.balance !== undefined ? { balance: request.balance } : {}),
    },
  };
  const settings = resolveSettings(request.settings ?? {}, source);
  const reporterOptions = typeof request.reporter === 'function' ? request.reporter(settings) : request.reporter;
  const reporter = host.reporter(reporterOptions);
  let sandbox: Sandbox | undefined;
  let library: Promise<Run> | undefined;
  // The platform is resolved once, by the library's run (the flags hold the environment's values already, through
  // commander's `.env`; errors name the flags); with `--sandbox` the in-process sandbox is the platform.
  const openLibrary = async (): Promise<Run> => {
    const logger = (e: { msg: string; [field: string]: unknown }): void => reporter.onHttpLog(e);
    let platform: PlatformOptions = {
      region: g.region as Region,
      apiKey: g.apiKey,
      secretKey: g.secretKey,
      endpoint: g.endpoint,
    };
    if (g.sandbox) {
      const { startSandbox } = await import('../../src/sandbox/index.js');
      sandbox = await startSandbox({});
      const { apiKey, secretKey, managementKey } = sandbox.credentials;
      platform = { region: g.region as Region, endpoint: sandbox.url, apiKey, secretKey, managementKey };
    }
    const { openRun } = await import('../../src/cli/run.js');
    const run = await openRun(
      {
        ...platform,
        managementKey: request.managementKey ?? platform.managementKey,
        logger,
        settings,
        signal: host.signal,
        ...(request.out !== undefined ? { out: request.out } : {}),
      },
      source,
    );
    for (const secret of secretsOf(run.platform.credentials)) host.addSecret(secret);
    try {
      requireProjectKeys(run.platform, true);
    } catch (err) {
      await run.close();
      throw err;
    }
    const ignored = regionIgnored(g, host.command);
    if (ignored !== undefined) reporter.log('warn', ignored, { event: 'warning' });
    const hint = secretFlagsHint(host.command);
    if (hint !== undefined) reporter.log('warn', hint, { event: 'secret_flag' });
    return run;
  };
  return {
    settings,
    reporter,
    library: () => (library ??= openLibrary()),
    close: async () => {
      try {
        await (await library?.catch(() => undefined))?.close();
      } finally {
        await sandbox?.close();
      }
    },
  };
}

/** A warning when `--region` was given (flag or env) but `--endpoint`/`--sandbox` makes it irrelevant. */
function regionIgnored(g: GlobalFlags, cmd: Command): string | undefined {
  let root = cmd;
  while (root.parent) root = root.parent;
  const source = root.getOptionValueSource('region');
  if (source !== 'cli' && source !== 'env') return undefined;
  if (g.sandbox) return `--region ${g.region} is ignored with --sandbox`;
  if (g.endpoint !== undefined) return `--region ${g.region} is ignored with --endpoint (requests go to ${g.endpoint})`;
  return undefined;
}

/** The secret flags that hold a secret; given on the command line, they are seen by anyone who lists processes. */
const SECRET_FLAGS = new Set(['apiKey', 'secretKey', 'managementKey']);

/** A one-line hint when a secret was given as a flag: its environment variable keeps it out of the process list. */
export function secretFlagsHint(cmd: Command): string | undefined {
  const given: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) {
    const level = c.options.filter(
      (o) => SECRET_FLAGS.has(o.attributeName()) && c!.getOptionValueSource(o.attributeName()) === 'cli',
    );
    given.unshift(...level.map((o) => `${o.envVar ?? ''}=… for ${o.long}`));
  }
  if (given.length === 0) return undefined;
  return `secrets given as flags are visible to anyone who lists this machine's processes (ps); set ${given.join(', ')} in the environment instead`;
}
