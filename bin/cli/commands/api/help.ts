/**
 * The texts of `api --list`, `api --help` (its examples) and `api <operation> --help`, from the catalogue's
 * declarations: the same `ParamSpec`s and body schemas the call is checked against.
 */
import { type Operation, type ParamSpec, paramTypeText } from '../../../../src/clients/index.js';

function paramLine(p: ParamSpec): string {
  const spec = p.wire !== undefined ? ` (sent as ${p.wire}; either name works)` : '';
  const def = p.default !== undefined ? ` (default ${p.default})` : '';
  return (
    `  --param ${p.name}=<${paramTypeText(p)}>`.padEnd(40) + `${p.required ? '(required) ' : ''}${p.help}${def}${spec}`
  );
}

/** One example call of `op`, from its declarations: its required parameters, a body when it takes one. */
function exampleOf(op: Operation): string {
  const sample = (p: ParamSpec): string =>
    p.values?.[0] ?? { string: 'x', integer: '1', boolean: 'true', 'string[]': 'a,b', json: '{}' }[p.type];
  const params = op.params.filter((p) => p.required).map((p) => ` -F ${p.wire ?? p.name}=${sample(p)}`);
  const body = op.body ? ' --body body.json' : '';
  return `  replay-export api ${op.name}${params.join('')}${body}`;
}

export function operationHelp(op: Operation): string {
  const lines = [
    `Usage: replay-export api ${op.name} [--param k=v]... [-f k=v] [-F k=v]${op.body ? ' [--body <file|->]' : ''}${op.paginate ? ' [--paginate [--slurp]]' : ''}`,
    '',
    `${op.summary}`,
    `${op.method} ${op.path}  (family ${op.family})`,
    '',
  ];
  lines.push(op.params.length > 0 ? 'Parameters:' : 'Parameters: none');
  for (const p of op.params) lines.push(paramLine(p));
  if (op.body)
    lines.push(
      '',
      `Body (JSON): ${op.body}`,
      `  --body <file|->: checked against it${op.bodySchema?.shape === 'object' ? '; or build it with -f/-F fields' : ''}; --input <file|->: sent as given, unchecked`,
    );
  if (op.paginate)
    lines.push('', "--paginate: every page's answer, one JSON line each; --slurp: one JSON array of the pages");
  lines.push('', op.output === 'csv' ? 'Output: CSV, as the API sends it' : "Output: the API's answer (JSON indented)");
  if (op.answer)
    lines.push('  (its replays filtered by startTime/endTime, as the client filters them; --raw: as it came)');
  lines.push(
    '',
    'Example:',
    exampleOf(op),
    '',
    'Also: -f/-F, --query, -H, -i, --jq, --input, --raw, --silent, --max-wait, --no-retry (api --help)',
  );
  return `${lines.join('\n')}\n`;
}

export function listLine(op: Operation): string {
  const params = op.params.map((p) => `${p.name}${p.required ? '' : '?'}:${paramTypeText(p)}`);
  if (op.body) params.push('--body');
  return `${op.name.padEnd(44)} ${op.method.padEnd(6)} ${params.join(' ')}`;
}

/** The examples `api --help` ends with, one for each habit taken from `gh api`. */
export const API_EXAMPLES = `
Fields (as gh api): -f key=value is a string; -F key=value is typed (true, false, null, numbers, @file, @- for
stdin; key[]=v appends to an array, key[sub]=v sets a member). A field naming a parameter is that parameter (checked);
any other goes in the query of a GET, else in the body (an object body is built from the fields). A name given twice
is sent twice, never replaced; a pass-through name the request sets itself is refused.

Examples:
  # one page of replays, then the ids of every replay, then every page in one JSON array
  replay-export api replay.list -F page_size=20 -f sort_order=asc
  replay-export api replay.list --paginate --jq '.session_replays[].replay_id'
  replay-export api replay.list --paginate --slurp --jq 'map(.session_replays | length) | add'
  # typed fields and arrays: a segmentation with an event read from a file
  replay-export api dashboard.segmentation -f start=20260101 -f end=20260131 -F e=@event.json
  replay-export api replay.list -F 'replay_id[]=dev-1/1700000000000' -F 'replay_id[]=dev-2/1700000000001'
  # a body built from fields (checked against the operation's schema)
  replay-export api flags.create -f key=new-checkout -f 'variants[][key]=on'
  # a header, the status line and headers before the body, and a jq filter over the answer
  replay-export api taxonomy.event-types.list -H 'Accept-Language: de' -i --jq '.data[].event_type'
  # a body sent as the bytes given, with its Content-Type (unchecked)
  replay-export api feedback.ingest --input ingest.json -H 'Content-Type: application/json'
  # an error: its body on stdout, the message on stderr, exit status not 0
  replay-export api taxonomy.categories.get -f category_name=none || echo "failed: $?"
`;
