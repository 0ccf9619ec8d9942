import type { Faults } from './faults.js';
import { startSandbox } from './server.js';

export interface SandboxCommandOptions {
  port?: number;
  replicas?: number;
  faults?: Partial<Faults>;
  samplesDir?: string;
  /** Where the url and credential lines go (default process.stdout). */
  out?: NodeJS.WritableStream;
  /** Stops the sandbox like SIGINT/SIGTERM do (for embedding). */
  signal?: AbortSignal;
}

/**
 * `replay-export sandbox`: starts the sandbox, prints `url=`, `api_key=`, `secret_key=` (one line each) and runs
 * until SIGINT or SIGTERM (or `signal`), then closes cleanly.
 */
export async function runSandboxCommand(opts: SandboxCommandOptions = {}): Promise<void> {
  const sandbox = await startSandbox({
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
    ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
    ...(opts.samplesDir !== undefined ? { samplesDir: opts.samplesDir } : {}),
  });
  const out = opts.out ?? process.stdout;
  out.write(`url=${sandbox.url}\napi_key=${sandbox.credentials.apiKey}\nsecret_key=${sandbox.credentials.secretKey}\n`);
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
