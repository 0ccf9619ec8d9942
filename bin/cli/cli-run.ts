import type { Command } from 'commander';
// Modules of their own rather than the package's entries: a command loads only what it uses (`decode` no client,
// no sandbox), and the sandbox is loaded only with `--sandbox`.
import type { Region } from '../../src/clients/index.js';
import { secretsOf } from '../../src/http/auth.js';
import { DEFAULTS } from '../../src/pipeline/defaults.js';
import { PLATFORM_ENV, requireProjectKeys, type PlatformOptions } from '../../src/pipeline/platform.js';
import { openRun, type Run, type RunOptions } from '../../src/pipeline/run.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { CliContext, CliRun, GlobalFlags, RunHow } from './context.js';
import type { Reporter } from './reporter.js';

/** What the run needs of the CLI's context. */
type RunHost = Pick<CliContext, 'globals' | 'env' | 'signal' | 'command' | 'reporter' | 'addSecret'>;

/**
 * The platform of the global flags (the library reads `PLATFORM_*` for what they leave out), or with `--sandbox` and
 * a command that reaches the platform the in-process sandbox, started here: its URL and keys (a management key
 * given to `api` still wins), and replays settled at once.
 */
async function platformOf(
  g: GlobalFlags,
  options: RunOptions,
  api: boolean,
): Promise<{ platform: RunOptions; defaults?: PlatformOptions; sandbox?: Sandbox }> {
  const region = g.region as Region | undefined;
  if (!(g.sandbox === true && api))
    return { platform: { apiKey: g.apiKey, secretKey: g.secretKey, region, endpoint: g.endpoint } };
  const { startSandbox } = await import('../../src/sandbox/index.js');
  const sandbox = await startSandbox({});
  const { apiKey, secretKey, managementKey } = sandbox.credentials;
  const platform = {
    region,
    endpoint: sandbox.url,
    apiKey,
    secretKey,
    settleMs: options.settleMs ?? DEFAULTS.sandboxSettleMs,
  };
  // A management key given (flag or PLATFORM_MANAGEMENT_KEY) wins over the sandbox's.
  return { platform, defaults: { managementKey }, sandbox };
}

/** Opens a command's run (see `CliContext.openRun`): the library resolves its configuration, once. */
export async function openCliRun(host: RunHost, options: RunOptions, how: RunHow = {}): Promise<CliRun> {
  const { platform, defaults, sandbox } = await platformOf(host.globals, options, how.api === true);
  let run: Run;
  let reporter: Reporter | undefined;
  try {
    run = await openRun(
      { ...options, ...platform, logger: (e) => reporter?.onHttpLog(e), signal: host.signal },
      { env: host.env, jobEnvironment: how.job, platformDefaults: defaults },
    );
  } catch (err) {
    await sandbox?.close();
    throw err;
  }
  for (const secret of secretsOf(run.platform.credentials)) host.addSecret(secret);
  reporter = host.reporter(typeof how.reporter === 'function' ? how.reporter(run.settings) : how.reporter);
  let connected = false;
  return {
    run,
    reporter,
    connect: () => {
      if (connected) return run;
      requireProjectKeys(run.platform);
      connected = true;
      const ignored = regionIgnored(host.globals, run);
      if (ignored !== undefined) reporter.log('warn', ignored, { event: 'warning' });
      const hint = secretFlagsHint(host.command);
      if (hint !== undefined) reporter.log('warn', hint, { event: 'secret_flag' });
      return run;
    },
    close: async () => {
      try {
        await run.close();
      } finally {
        await sandbox?.close();
      }
    },
  };
}

/** A warning when `--region` was given (flag or env) but `--endpoint`/`--sandbox` makes it irrelevant. */
function regionIgnored(g: GlobalFlags, run: Run): string | undefined {
  const { region, regionGiven, endpoint } = run.platform;
  if (!regionGiven) return undefined;
  if (g.sandbox) return `--region ${region} is ignored with --sandbox`;
  if (endpoint !== undefined) return `--region ${region} is ignored with --endpoint (requests go to ${endpoint})`;
  return undefined;
}

/** The flags that hold a secret, and the environment variable that keeps each out of the process list. */
const SECRET_FLAGS: Readonly<Record<string, string>> = {
  apiKey: PLATFORM_ENV.apiKey,
  secretKey: PLATFORM_ENV.secretKey,
  managementKey: PLATFORM_ENV.managementKey,
};

/** A one-line hint when a secret was given as a flag: its environment variable keeps it out of the process list. */
export function secretFlagsHint(cmd: Command): string | undefined {
  const given: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) {
    const level = c.options.filter((o) => c!.getOptionValueSource(o.attributeName()) === 'cli');
    const secrets = level.filter((o) => Object.hasOwn(SECRET_FLAGS, o.attributeName()));
    given.unshift(...secrets.map((o) => `${SECRET_FLAGS[o.attributeName()]}=… for ${o.long}`));
  }
  if (given.length === 0) return undefined;
  return `secrets given as flags are visible to anyone who lists this machine's processes (ps); set ${given.join(', ')} in the environment instead`;
}
