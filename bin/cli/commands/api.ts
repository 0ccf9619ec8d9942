/**
 * `replay-export api`: every operation of the catalogue (src/clients/catalogue.ts) from the command line —
 * `--list`, `<operation> --help`, and `<operation> [--param k=v]... [--body file|-] [--paginate]`, which validates,
 * calls and prints the result on stdout (JSON; NDJSON records with `--paginate`; CSV as is).
 */
import { Option, type Command } from 'commander';
import { createReadStream } from 'node:fs';
import { pathKind } from '../out-target.js';
import {
  findOperation,
  OperationArgs,
  OPERATIONS,
  ValidationError,
  type Operation,
  type ParamSpec,
} from '../../../src/clients/index.js';
import { ConfigError } from '../../../src/index.js';
import type { CliContext, Invocation } from '../context.js';

/** A body read from a file or stdin is a request body: refused past this size (the API's own caps are smaller). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

interface ApiFlags {
  list?: boolean;
  help?: boolean;
  param: string[];
  body?: string;
  paginate?: boolean;
  managementKey?: string;
}

function paramLine(p: ParamSpec): string {
  return `  --param ${p.name}=<${p.type}>`.padEnd(40) + `${p.required ? '(required) ' : ''}${p.help}`;
}

function operationHelp(op: Operation): string {
  const lines = [`Usage: replay-export api ${op.name} [--param k=v]...${op.body ? ' --body <file|->' : ''}${op.paginate ? ' [--paginate]' : ''}`, '', `${op.summary}`, `${op.method} ${op.path}  (family ${op.family})`, ''];
  lines.push(op.params.length > 0 ? 'Parameters:' : 'Parameters: none');
  for (const p of op.params) lines.push(paramLine(p));
  if (op.body) lines.push('', `Body (JSON, --body <file> or - for stdin): ${op.body}`);
  if (op.paginate) lines.push('', '--paginate: every record of every page, one JSON line each');
  if (op.output === 'csv') lines.push('', 'Output: CSV, as the API sends it');
  return lines.join('\n') + '\n';
}

function listLine(op: Operation): string {
  const params = op.params.map((p) => `${p.name}${p.required ? '' : '?'}:${p.type}`);
  if (op.body) params.push('--body');
  return `${op.name.padEnd(44)} ${op.method.padEnd(6)} ${params.join(' ')}`;
}

function pairsOf(params: readonly string[]): Array<[string, string]> {
  return params.map((p) => {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--param must be name=value (got ${JSON.stringify(p)})`);
    return [p.slice(0, eq), p.slice(eq + 1)];
  });
}

async function readBody(source: string, stdin: NodeJS.ReadableStream): Promise<unknown> {
  if (source !== '-') {
    const kind = await pathKind(source);
    if (kind !== 'file') throw new ConfigError(`--body ${source}: ${kind === 'none' ? 'no such file' : 'not a file'}; give a JSON file, or --body - to read stdin`);
  }
  const stream = source === '-' ? stdin : createReadStream(source);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ConfigError(`--body: more than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new ValidationError('body', 'must be valid JSON');
  }
}

async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await new Promise((res) => out.once('drain', res));
}

async function runOperation(op: Operation, f: ApiFlags, context: CliContext): Promise<void> {
  const args = OperationArgs.parse(op.params, pairsOf(f.param));
  if (f.paginate && !op.paginate) throw new ConfigError(`${op.name} is not paged; --paginate does not apply`);
  if (op.body && f.body === undefined) throw new ConfigError(`${op.name} needs --body <file|-> (${op.body})`);
  if (!op.body && f.body !== undefined) throw new ConfigError(`${op.name} takes no body`);
  const body = f.body === undefined ? undefined : await readBody(f.body, context.stdin);
  const run = await context.openRun({ managementKey: f.managementKey });
  try {
    // The run's transport has the reporter's logger: every wait (a 429 and its Retry-After, a backoff) is logged.
    const clients = await (await run.library()).clients();
    const o = { signal: context.signal };
    if (f.paginate && op.paginate) {
      for await (const record of op.paginate(clients, args, o)) await write(context.stdout, JSON.stringify(record) + '\n');
      return;
    }
    const result = await op.run(clients, args, body, o);
    if (op.output === 'csv' && typeof result === 'string') await write(context.stdout, result);
    else if (result !== undefined) await write(context.stdout, JSON.stringify(result, null, 2) + '\n');
  } finally {
    await run.close();
  }
}

export function register(program: Command): Command {
  return program
    .command('api')
    .description('call any API operation by name (api --list; api <operation> --help)')
    .argument('[operation]', 'operation name, e.g. dashboard.segmentation')
    .helpOption(false)
    .option('-h, --help', 'this help, or the operation\'s parameters when an operation is named')
    .option('--list', 'list every operation with its parameters')
    .option('--param <name=value>', 'an operation parameter (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--body <file>', 'JSON request body from a file, or - for stdin')
    .option('--paginate', 'paged operations: every record of every page, one JSON line each')
    .addOption(new Option('--management-key <key>', 'management API key (experiments, flags)').env('PLATFORM_MANAGEMENT_KEY'));
}

export async function run(f: Invocation<ApiFlags>, context: CliContext): Promise<number> {
  if (f.managementKey) context.addSecret(f.managementKey);
  const out = context.stdout;
  if (f.list) {
    for (const op of OPERATIONS) await write(out, listLine(op) + '\n');
    return 0;
  }
  const name = f.args[0];
  if (name === undefined) {
    await write(out, context.command.helpInformation());
    if (!f.help) throw new ConfigError('name an operation (api --list shows them)');
    return 0;
  }
  const op = findOperation(name);
  if (!op) {
    const near = nearestOperation(name);
    throw new ConfigError(`unknown operation ${JSON.stringify(name)}${near !== undefined ? `; did you mean ${near}?` : ''} (api --list shows them)`);
  }
  if (f.help) {
    await write(out, operationHelp(op));
    return 0;
  }
  await runOperation(op, f, context);
  return 0;
}

/** Edits (insertions, deletions, substitutions) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The operation a mistyped name most likely meant: one whose name ends with it after a dot (`retention` →
 * `dashboard.retention`), else the closest within a third of the name's length in edits; undefined when none is.
 */
export function nearestOperation(name: string): string | undefined {
  const typed = name.trim().toLowerCase();
  if (typed === '') return undefined;
  const suffix = OPERATIONS.find((o) => o.name.toLowerCase().endsWith(`.${typed}`));
  if (suffix !== undefined) return suffix.name;
  let best: { name: string; d: number } | undefined;
  for (const o of OPERATIONS) {
    const d = editDistance(typed, o.name.toLowerCase());
    if (best === undefined || d < best.d) best = { name: o.name, d };
  }
  return best !== undefined && best.d <= Math.max(1, Math.floor(typed.length / 3)) ? best.name : undefined;
}
