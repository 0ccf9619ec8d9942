/**
 * `replay-export api`: every operation of the catalogue (src/clients/catalogue.ts) from the command line, with the
 * habits of `gh api` — `--list`, `<operation> --help`, and `<operation> [--param k=v]... [-f k=v] [-F k=v]
 * [--query k=v] [-H 'Name: value'] [--body file|- | --input file|-] [--paginate [--slurp]] [-i] [--jq filter]`,
 * which validates, calls and prints the API's answers on stdout (api/output.ts). Fields go where the operation takes them
 * (api/fields.ts); an error's answer is printed on stdout and its message on stderr. Waits are logged on stderr.
 */
import type { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { pathKind } from '../out-target.js';
import {
  type AnswerSeen,
  type ApiClients,
  ApiError,
  type ApiResponse,
  type CallOptions,
  errorFields,
  findOperation,
  knownNames,
  OperationArgs,
  OPERATIONS,
  type Operation,
  pathParams,
  sendRaw,
  ValidationError,
  wireOf,
} from '../../../src/clients/index.js';
import { ConfigError, exitCodeOf } from '../../../src/index.js';
import { flagsOf, type CliContext } from '../context.js';
import { collect, REQUEST_DEADLINE_HELP, requestLimitsOf, withDefault } from '../flags.js';
import type { Reporter } from '../reporter.js';
import { headersOf, queryPairs, readFields, routeFields, type RoutedFields } from './api/fields.js';
import { API_EXAMPLES, listLine, operationHelp } from './api/help.js';
import { compileJq } from './api/jq.js';
import { ApiOutput, write } from './api/output.js';

/** A body read from a file or stdin is a request body: refused past this size (the API's own caps are smaller). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The `api` command's options, one object (as commander binds them). */
interface ApiOptions {
  list?: boolean;
  help?: boolean;
  param: string[];
  rawField: string[];
  field: string[];
  query: string[];
  header: string[];
  body?: string;
  input?: string;
  paginate?: boolean;
  slurp?: boolean;
  include?: boolean;
  silent?: boolean;
  jq?: string;
  raw?: boolean;
  maxWait?: string;
  /** False with `--no-retry`. */
  retry?: boolean;
  requestDeadline?: string;
  managementKey?: string;
}

async function readBytes(flag: string, source: string, stdin: NodeJS.ReadableStream): Promise<Buffer> {
  if (source !== '-') {
    const kind = await pathKind(source);
    if (kind !== 'file')
      throw new ConfigError(
        `${flag} ${source}: ${kind === 'none' ? 'no such file' : 'not a file'}; give a${flag === '--body' ? ' JSON' : ''} file, or ${flag === '--body' || flag === '--input' ? `${flag} -` : '@-'} to read stdin`,
      );
  }
  const stream = source === '-' ? stdin : createReadStream(source);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ConfigError(`${flag}: more than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readJsonBody(source: string, stdin: NodeJS.ReadableStream): Promise<unknown> {
  const bytes = await readBytes('--body', source, stdin);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ValidationError('body', 'must be valid JSON');
  }
}

/** Flags that do not go together, and flags the operation does not take. */
function checkFlags(op: Operation, f: ApiOptions): void {
  if (f.paginate && !op.paginate) throw new ConfigError(`${op.name} is not paged; --paginate does not apply`);
  if (f.slurp && !f.paginate) throw new ConfigError('--slurp goes with --paginate');
  if (f.input !== undefined && f.body !== undefined) throw new ConfigError('give --body or --input, not both');
  if (f.input !== undefined && f.paginate) throw new ConfigError('--paginate does not go with --input');
  if (f.silent && (f.jq !== undefined || f.slurp))
    throw new ConfigError('--silent prints no answer: not with --jq or --slurp');
  if (f.slurp && f.raw)
    throw new ConfigError('--slurp prints the records as one array; --raw prints the answers as they came');
  if (!op.body && f.body !== undefined) throw new ConfigError(`${op.name} takes no body`);
}

/** What one call sends: its checked parameters, its body (or raw bytes) and the pass-through parts. */
interface Call {
  args: OperationArgs;
  body: unknown;
  raw?: { body: Buffer; contentType: string };
  routed: RoutedFields;
  headers: Record<string, string>;
}

async function callOf(op: Operation, f: ApiOptions, context: CliContext): Promise<Call> {
  const readText = async (path: string) => (await readBytes('-F', path, context.stdin)).toString('utf8');
  const fields = await readFields(
    [
      ...f.rawField.map((text) => ({ flag: '-f' as const, text })),
      ...f.field.map((text) => ({ flag: '-F' as const, text })),
    ],
    readText,
  );
  const routed = routeFields(op, fields, { bodyGiven: f.body !== undefined, input: f.input !== undefined });
  const query = queryPairs(f.query);
  const known = knownNames(op.params);
  routed.query.push(...query);
  routed.unchecked.push(...query.filter(([k]) => !known.has(k)).map(([k]) => `--query ${k}`));
  const pairs = [...f.param.map(pairOf), ...routed.params];
  const headers = headersOf(f.header);
  if (f.input !== undefined) {
    // The body is the bytes given: only the path's parameters are required.
    const inPath = new Set(pathParams(op).map((p) => p.name));
    const specs = op.params.map((p) => (inPath.has(p.name) ? p : { ...p, required: false }));
    const contentType =
      Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ??
      (wireOf(op).form ? 'application/x-www-form-urlencoded' : 'application/json');
    const bytes = await readBytes('--input', f.input, context.stdin);
    return {
      args: OperationArgs.parse(specs, pairs),
      body: undefined,
      raw: { body: bytes, contentType },
      routed,
      headers,
    };
  }
  const args = OperationArgs.parse(op.params, pairs);
  const body = f.body !== undefined ? await readJsonBody(f.body, context.stdin) : routed.body;
  if (op.body && body === undefined)
    throw new ConfigError(`${op.name} needs a body: --body <file|->, -f/-F fields, or --input <file|-> (${op.body})`);
  return { args, body, routed, headers };
}

function pairOf(p: string): [string, string] {
  const eq = p.indexOf('=');
  if (eq <= 0) throw new ConfigError(`--param must be name=value (got ${JSON.stringify(p)})`);
  return [p.slice(0, eq), p.slice(eq + 1)];
}

/** The call's options for the client: the signal, the pass-through parts, and the answers to the output. */
function callOptions(call: Call, context: CliContext, output: ApiOutput, printed: Promise<void>[]): CallOptions {
  const { query, extraFields } = call.routed;
  return {
    signal: context.signal,
    extraQuery: query.length > 0 ? query : undefined,
    extraFields: extraFields.length > 0 ? extraFields : undefined,
    extraHeaders: Object.keys(call.headers).length > 0 ? call.headers : undefined,
    // Answers are printed one after another, in the order they came.
    onResponse: (res: ApiResponse) => {
      const p = (printed.at(-1) ?? Promise.resolve()).then(() => output.answer(res));
      p.catch(() => undefined); // awaited with the others once the call ends (a failure is reported then)
      printed.push(p);
    },
  };
}

async function runOperation(op: Operation, f: ApiOptions, context: CliContext, output: ApiOutput): Promise<void> {
  checkFlags(op, f);
  const request = await callOf(op, f, context);
  if (op.answer) output.shapeWith((answer) => op.answer!(answer, request.args));
  for (const [k, v] of Object.entries(request.headers)) if (k.toLowerCase() === 'authorization') context.addSecret(v);
  // Every wait of the run's transport (a 429 and its Retry-After, a backoff) is a warning on stderr.
  const run = await context.openRun(
    { managementKey: f.managementKey, ...requestLimitsOf(f) },
    { api: true, reporter: { retriesShown: true } },
  );
  try {
    if (request.routed.unchecked.length > 0) warnUnchecked(run.reporter, op, request.routed.unchecked);
    const clients = await run.connect().clients();
    const printed: Promise<void>[] = [];
    const o = callOptions(request, context, output, printed);
    try {
      await call(op, f, request, clients, o);
    } finally {
      await Promise.all(printed);
    }
    await output.end();
  } finally {
    await run.close();
  }
}

/** Makes the call (its answers go to the output as they arrive), every page of it with `--paginate`. */
async function call(op: Operation, f: ApiOptions, c: Call, clients: ApiClients, o: CallOptions): Promise<void> {
  if (c.raw !== undefined) {
    await sendRaw(clients, op, c.args, c.raw, o);
    return;
  }
  if (f.paginate && op.paginate) {
    for await (const _record of op.paginate(clients, c.args, o)) {
      // Each page's answer is printed as it arrives; the records are the client's (its paging checks run on them).
    }
    return;
  }
  await op.run(clients, c.args, c.body, o);
}

function warnUnchecked(reporter: Reporter, op: Operation, names: readonly string[]): void {
  reporter.log('warn', `unchecked: ${names.join(', ')} not in the spec's parameters of ${op.name}; sent as given`, {
    event: 'unchecked',
    operation: op.name,
    parameters: names,
  });
}

/** The answer an error carries (the transport keeps it when `api` asked to see answers), along its causes. */
function answerOf(err: unknown): AnswerSeen | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof ApiError && e.answer !== undefined) return e.answer;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
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
      collect,
      [] as string[],
    )
    .option('-f, --raw-field <key=value>', 'a string field (repeatable; see Fields below)', collect, [] as string[])
    .option(
      '-F, --field <key=value>',
      'a typed field: true, false, null, numbers, @file; key[]=, key[sub]= (repeatable)',
      collect,
      [] as string[],
    )
    .option(
      '--query <name=value>',
      'a query parameter sent as given, unchecked (repeatable; a name twice is sent twice)',
      collect,
      [] as string[],
    )
    .option('-H, --header <name: value>', 'a request header (repeatable)', collect, [] as string[])
    .option('--body <file>', 'JSON request body from a file, or - for stdin; checked against the operation')
    .option(
      '--input <file>',
      'request body sent as these bytes (file, or - for stdin), unchecked; fields go in the query',
    )
    .option('--paginate', "paged operations: every page's answer, one JSON line each")
    .option('--slurp', 'with --paginate: every page in one JSON array')
    .option('-i, --include', "print each answer's status line and headers before its body")
    .option('--silent', "print no answer's body (the exit status and stderr still say how it went)")
    .option('--jq <filter>', 'print what the jq filter selects from each answer (strings raw, values as JSON)')
    .option('--raw', 'print each response body exactly as the API sent it')
    .option(
      '--max-wait <duration>',
      withDefault(
        'most time all waits may take together (each server Retry-After as given, backoffs, budgets); past it the command stops',
        'none',
      ),
    )
    .option('--no-retry', 'no retries: the first 429, 5xx or network failure ends the command')
    .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
    .option('--management-key <key>', 'management API key (experiments, flags) (env: PLATFORM_MANAGEMENT_KEY)')
    .addHelpText('after', API_EXAMPLES);
}

export async function run(context: CliContext): Promise<number> {
  const f = flagsOf<ApiOptions>(context);
  if (f.managementKey) context.addSecret(f.managementKey);
  const out = context.stdout;
  if (f.list) {
    for (const op of OPERATIONS) await write(out, `${listLine(op)}\n`);
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
  const jq = f.jq !== undefined ? await compileJq(f.jq) : undefined;
  const output = new ApiOutput(out, {
    include: f.include === true,
    raw: f.raw === true,
    pages: f.paginate === true,
    silent: f.silent === true,
    slurp: f.slurp === true,
    ...(jq ? { jq } : {}),
  });
  try {
    await runOperation(op, f, context, output);
  } catch (err) {
    if (context.signal.aborted) throw err;
    const answer = answerOf(err);
    if (answer !== undefined) await output.failure(answer);
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
