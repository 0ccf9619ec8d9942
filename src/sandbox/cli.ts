import type { Faults } from './faults.js';
import type { SandboxOptions } from './options.js';
import { startSandbox } from './server.js';

export interface SandboxCommandOptions {
  port?: number | undefined;
  replicas?: number | undefined;
  faults?: Partial<Faults> | undefined;
  samplesDir?: string | undefined;
  /** Any other sandbox option (`--options`, options-flag.ts). */
  options?: Partial<SandboxOptions> | undefined;
  /** Where the url and credential lines go (default process.stdout). */
  out?: NodeJS.WritableStream | undefined;
  /** Stops the sandbox like SIGINT/SIGTERM do (for embedding). */
  signal?: AbortSignal | undefined;
}

/** A value as one shell word: as it is when plain, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The text printed once the sandbox listens: `key=value` lines, a block to paste into a shell, how to stop. */
function sandboxBanner(url: string, credentials: { apiKey: string; secretKey: string; managementKey: string }): string {
  const paste =
    `export PLATFORM_ENDPOINT=${shellWord(url)} PLATFORM_API_KEY=${shellWord(credentials.apiKey)} ` +
    `PLATFORM_SECRET_KEY=${shellWord(credentials.secretKey)} PLATFORM_MANAGEMENT_KEY=${shellWord(credentials.managementKey)}`;
  return (
    `url=${url}\napi_key=${credentials.apiKey}\nsecret_key=${credentials.secretKey}\nmanagement_key=${credentials.managementKey}\n\n` +
    `# paste into another shell, then run replay-export there (e.g. replay-export list):\n${paste}\n\nCtrl-C to stop.\n`
  );
}

/**
 * `replay-export sandbox`: starts the sandbox, prints `url=`, `api_key=`, `secret_key=`, `management_key=` (one line
 * each), an `export PLATFORM_ENDPOINT=… PLATFORM_API_KEY=… PLATFORM_SECRET_KEY=… PLATFORM_MANAGEMENT_KEY=…` line to
 * paste and "Ctrl-C to stop", and runs until SIGINT or SIGTERM (or `signal`), then closes cleanly.
 */
export async function runSandboxCommand(opts: SandboxCommandOptions = {}): Promise<void> {
  const sandbox = await startSandbox({
    ...opts.options,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
    ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
    ...(opts.samplesDir !== undefined ? { samplesDir: opts.samplesDir } : {}),
  });
  const out = opts.out ?? process.stdout;
  out.write(sandboxBanner(sandbox.url, sandbox.credentials));
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      opts.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener('abort', stop);
  });
  await sandbox.close();
}
