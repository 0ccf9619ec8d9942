import type { Command } from 'commander';
import type { CliContext, Invocation } from '../context.js';
import { addS3AccessFlags, portFlag, s3ReadOptions, type S3ReadFlags } from '../flags.js';
import { runViewCommand } from '../view-command.js';

interface ViewFlags extends S3ReadFlags {
  port?: number;
}

export function register(program: Command): Command {
  return addS3AccessFlags(
    program
      .command('view')
      .description('browse an archive (a folder or s3://bucket/prefix) in a browser: a web server on 127.0.0.1 with its index and a player; prints its URL')
      .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
      .option('--port <n>', 'port (default: any free port)', portFlag),
  );
}

export async function run(opts: Invocation<ViewFlags>, context: CliContext): Promise<number> {
  context.releaseSignals();
  const run = await context.openRun({ settings: { sinkOptions: { s3: s3ReadOptions(opts) } } });
  try {
    await runViewCommand(opts.args[0]!, { ...(opts.port !== undefined ? { port: opts.port } : {}), s3: run.settings.sinkOptions.s3 }, context.signal, context);
    return 0;
  } finally {
    await run.close();
  }
}
