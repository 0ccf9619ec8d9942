import { spawn } from 'node:child_process';
import { CLI } from './cli-helpers.js';

export interface PtyResult {
  code: number | null;
  /** Everything the terminal received (stdout and stderr together, `\n` turned into `\r\n` by the terminal). */
  output: string;
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the CLI in a pseudo-terminal of `cols` columns (util-linux `script`), so that stdout and stderr are a TTY.
 * `onOutput` sees the output as it comes and can type Ctrl-C (`interrupt`).
 */
export function runInPty(
  args: string[],
  env: NodeJS.ProcessEnv,
  cols = 80,
  onOutput?: (soFar: string, interrupt: () => void) => void,
): Promise<PtyResult> {
  const command = `stty cols ${cols} rows 24; exec ${[process.execPath, CLI, ...args].map(shellQuote).join(' ')}`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    // Ctrl-C typed on the terminal: the terminal sends SIGINT to the CLI (the process `script` runs in it).
    onOutput?.(output, () => child.stdin.write('\x03'));
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The lines as a terminal shows them: split at `\r\n` / `\n`, each line's last redraw after a `\r`, escapes removed. */
export function screenLines(output: string): string[] {
  return output
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .split(/\r?\n/)
    .map((l) => l.split('\r').at(-1) ?? '');
}

/** Every stretch of text written between two carriage returns or newlines (each drawn state of the line). */
export function drawnSegments(output: string): string[] {
  return output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split(/\r|\n/);
}
