/**
 * `replay-export api`: every operation of the catalogue (src/clients/catalogue.ts) from the command line —
 * `--list`, `<operation> --help`, and `<operation> [--param k=v]... [--body file|-] [--paginate]`, which validates,
 * calls and prints the result on stdout (JSON; NDJSON records with `--paginate`; CSV as is; `--raw`: the response
 * bodies as they came; a mutation without a typed result: the API's answer). `--query`/`--field` pass anything
 * through unchecked. Waits are logged on stderr; errors carry status, code, field and the server's messages.
 */
import { Option, type Command } from 'commander';
import { createReadStream } from 'node:fs';
import { pathKind } from '../out-target.js';
import {
  errorFields,
  findOperation,
  knownNames,
  OperationArgs,
  OPERATIONS,
  ValidationError,
  type ApiResponse,
  type Operation,
  type ParamSpec,
} from '../../../src/clients/index.js';
import { ConfigError, exitCodeOf } from '../../../src/index.js';
import type { CliContext, Invocation } from '../context.js';
import { REQUEST_DEADLINE_HELP, requestLimitsOf, withDefault } from '../flags.js';
import type { Reporter } from '../reporter.js';
import { writeData } from '../terminal-output.js';

/** A body read from a file or stdin is a request body: refused past this size (the API's own caps are smaller). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

interface ApiFlags {
  list?: boolean;
  help?: boolean;
  param: string[];
  query: string[];
  field: string[];
  body?: string;
  paginate?: boolean;
  raw?: boolean;
  maxWait?: string;
  /** False with `--no-retry`. */
  retry?: boolean;
  requestDeadline?: string;
  managementKey?: string;
}

function paramLine(p: ParamSpec): string {
  const spec = p.wire !== undefined ? ` (sent as ${p.wire}; either name works)` : '';
  return `  --param ${p.name}=<${p.type}>`.padEnd(40) + `${p.required ? '(required) ' : ''}${p.help}${spec}`;
}

function operationHelp(op: Operation): string {
  const lines = [
    `Usage: replay-export api ${op.name} [--param k=v]...${op.body ? ' --body <file|->' : ''}${op.paginate ? ' [--paginate]' : ''}`,
    '',
    `${op.summary}`,
    `${op.method} ${op.path}  (family ${op.family})`,
    '',
  ];
  lines.push(op.params.length > 0 ? 'Parameters:' : 'Parameters: none');
  for (const p of op.params) lines.push(paramLine(p));
  if (op.body) lines.push('', `Body (JSON, --body <file> or - for stdin): ${op.body}`);
  if (op.paginate) lines.push('', '--paginate: every record of every page, one JSON line each');
  if (op.output === 'csv') lines.push('', 'Output: CSV, as the API sends it');
  lines.push(
    '',
    'Also: --query k=v / --field k=v (sent unchecked), --raw, --max-wait, --no-retry, --request-deadline (api --help)',
  );
  return lines.join('\n') + '\n';
}

function listLine(op: Operation): string {
  const params = op.params.map((p) => `${p.name}${p.required ? '' : '?'}:${p.type}`);
  if (op.body) params.push('--body');
  return `${op.name.padEnd(44)} ${op.method.padEnd(6)} ${params.join(' ')}`;
}

function pairsOf(params: readonly string[], flag = '--param'): Array<[string, string]> {
  return params.map((p) => {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new ConfigError(`${flag} must be name=value (got ${JSON.stringify(p)})`);
    return [p.slice(0, eq), p.slice(eq + 1)];
  });
}

/** `--field` values: JSON where the text is JSON (`7`, `true`, `["a"]`), else the text as a string. */
function fieldValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What `--query`/`--field` pass through: the request's extras, and the names the operation's schema does not know. */
function passThrough(
  op: Operation,
  f: ApiFlags,
): { extras: { extraQuery?: Record<string, string>; extraFields?: Record<string, unknown> }; unknown: string[] } {
  const query = pairsOf(f.query, '--query');
  const fields = pairsOf(f.field, '--field');
  const params = knownNames(op.params);
  // The fields of an object body (an array body's schema is its elements': a field goes beside them, unknown).
  const bodyFields = new Set(op.bodySchema?.shape === 'object' ? op.bodySchema.fields.map((b) => b.name) : []);
  const unknown = [
    ...query.filter(([k]) => !params.has(k)).map(([k]) => `--query ${k}`),
    ...fields.filter(([k]) => !bodyFields.has(k)).map(([k]) => `--field ${k}`),
  ];
  const extras = {
    ...(query.length > 0 ? { extraQuery: Object.fromEntries(query) } : {}),
    ...(fields.length > 0 ? { extraFields: Object.fromEntries(fields.map(([k, v]) => [k, fieldValue(v)])) } : {}),
  };
  return { extras, unknown };
}

/** The API's answer as printed: JSON bodies parsed (and indented), other bodies as text; an empty body prints nothing. */
function answerText(res: ApiResponse): string {
  const text = res.text();
  if (text.trim() === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2) + '\n';
  } catch {
    return text.endsWith('\n') ? text : text + '\n';
  }
}

/** A response body exactly as it came, ended by a newline when it has none (`--raw`: one body after another). */
async function writeRaw(out: NodeJS.WritableStream, res: ApiResponse): Promise<void> {
  await write(out, res.body);
  if (res.body.length > 0 && res.body[res.body.length - 1] !== 0x0a) await write(out, '\n');
}

async function readBody(source: string, stdin: NodeJS.ReadableStream): Promise<unknown> {
  if (source !== '-') {
    const kind = await pathKind(source);
    if (kind !== 'file')
      throw new ConfigError(
        `--body ${source}: ${kind === 'none' ? 'no such file' : 'not a file'}; give a JSON file, or --body - to read stdin`,
      );
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

async function write(out: NodeJS.WritableStream, text: string | Buffer): Promise<void> {
  if (!out.write(text)) await new Promise((res) => out.once('drain', res));
}

async function runOperation(op: Operation, f: ApiFlags, context: CliContext): Promise<void> {
  const args = OperationArgs.parse(op.params, pairsOf(f.param));
  const { extras, unknown } = passThrough(op, f);
  if (f.paginate && !op.paginate) throw new ConfigError(`${op.name} is not paged; --paginate does not apply`);
  if (op.body && f.body === undefined) throw new ConfigError(`${op.name} needs --body <file|-> (${op.body})`);
  if (!op.body && f.body !== undefined) throw new ConfigError(`${op.name} takes no body`);
  const body = f.body === undefined ? undefined : await readBody(f.body, context.stdin);
  // Every wait of the run's transport (a 429 and its Retry-After, a backoff) is a warning on stderr.
  const run = await context.openRun({
    managementKey: f.managementKey,
    settings: requestLimitsOf(f),
    reporter: { retriesShown: true },
  });
  try {
    if (unknown.length > 0) warnUnchecked(run.reporter, op, unknown);
    const clients = await (await run.library()).clients();
    const responses: ApiResponse[] = [];
    const o = { signal: context.signal, ...extras, onResponse: (res: ApiResponse) => void responses.push(res) };
    const flushRaw = async (): Promise<void> => {
      for (const res of responses.splice(0)) await writeRaw(context.stdout, res);
    };
    if (f.paginate && op.paginate) {
      for await (const record of op.paginate(clients, args, o)) {
        if (f.raw) await flushRaw();
        else await writeData(context.stdout, 'json', JSON.stringify(record) + '\n');
      }
      if (f.raw) await flushRaw();
      return;
    }
    const result = await op.run(clients, args, body, o);
    if (f.raw) await flushRaw();
    else if (op.output === 'csv' && typeof result === 'string') await writeData(context.stdout, 'text', result);
    else if (result !== undefined) await writeData(context.stdout, 'json', JSON.stringify(result, null, 2) + '\n');
    // A call with no typed result (a mutation answered `OK`, `{success}`): what the API answered.
    else if (responses.length > 0)
      await writeData(context.stdout, 'json', answerText(responses[responses.length - 1]!));
  } finally {
    await run.close();
  }
}

function warnUnchecked(reporter: Reporter, op: Operation, names: readonly string[]): void {
  reporter.log('warn', `unchecked: ${names.join(', ')} not in the spec's parameters of ${op.name}; sent as given`, {
    event: 'unchecked',
    operation: op.name,
    parameters: names,
  });
}

/**
 * A failed call on stderr: the message, then its structured fields (`status`, `code`, `field`, `server_messages`:
 * `errorFields`) as lines of their own in text, in the `fatal` record in JSON. The exit code is the error's.
 */
function reportFailure(err: unknown, context: CliContext): number {
  const code = exitCodeOf(err);
  const fields = errorFields(err);
  const reporter = context.plainReporter();
  const message = err instanceof Error ? err.message : String(err);
  if (context.format === 'json') {
    reporter.log('error', message, { event: 'fatal', exit_code: code, ...fields });
    return code;
  }
  reporter.log('error', message);
  if (fields.status !== undefined) reporter.final('error', `  status: ${fields.status}`);
  reporter.final('error', `  code: ${fields.code}`);
  if (fields.field !== undefined) reporter.final('error', `  field: ${fields.field}`);
  for (const m of fields.server_messages ?? []) reporter.final('error', `  server message: ${m}`);
  return code;
}

export function register(program: Command): Command {
  return program
    .command('api')
    .description('call any API operation by name (api --list; api <operation> --help)')
    .argument('[operation]', 'operation name, e.g. dashboard.segmentation')
    .helpOption(false)
    .option('-h, --help', "this help, or the operation's parameters when an operation is named")
    .option('--list', 'list every operation with its parameters')
    .option(
      '--param <name=value>',
      "an operation parameter, checked; its name or the spec's (repeatable)",
      repeat,
      [] as string[],
    )
    .option('--query <name=value>', 'a query parameter sent as given, unchecked (repeatable)', repeat, [] as string[])
    .option(
      '--field <name=value>',
      'a body field sent as given, unchecked; JSON values parsed (repeatable)',
      repeat,
      [] as string[],
    )
    .option('--body <file>', 'JSON request body from a file, or - for stdin')
    .option('--paginate', 'paged operations: every record of every page, one JSON line each')
    .option('--raw', 'print each response body exactly as the API sent it')
    .option(
      '--max-wait <duration>',
      withDefault('most time all retry waits may take together; past it the command stops', 'none'),
    )
    .option('--no-retry', 'no retries: the first 429, 5xx or network failure ends the command')
    .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
    .addOption(
      new Option('--management-key <key>', 'management API key (experiments, flags)').env('PLATFORM_MANAGEMENT_KEY'),
    );
}

const repeat = (v: string, prev: string[]): string[] => [...prev, v];

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
    throw new ConfigError(
      `unknown operation ${JSON.stringify(name)}${near !== undefined ? `; did you mean ${near}?` : ''} (api --list shows them)`,
    );
  }
  if (f.help) {
    await write(out, operationHelp(op));
    return 0;
  }
  try {
    await runOperation(op, f, context);
  } catch (err) {
    if (context.signal.aborted) throw err;
    return reportFailure(err, context);
  }
  return 0;
}

/** Edits (insertions, deletions, substitutions) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
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
