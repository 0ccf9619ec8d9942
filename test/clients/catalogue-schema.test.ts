/**
 * Every operation of the catalogue: the body text `api <op> --help` prints is generated from the same schema the
 * client checks before sending, and the two agree in practice. For each operation that takes a body (against the
 * sandbox, over HTTP): the smallest body the help allows is not refused by the client; leaving out any field the help
 * marks required is refused naming that field; a field the help does not list is refused (closed objects); and no
 * field marked optional is required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClients,
  describeBody,
  OperationArgs,
  OPERATIONS,
  ValidationError,
  type BodyField,
  type BodySchema,
  type Operation,
  type ParamSpec,
} from '../../src/clients/index.js';
import { Transport } from '../../src/http/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let sandbox: Sandbox;
let transport: Transport;
let clients: ApiClients;

beforeAll(async () => {
  sandbox = await startSandbox();
  transport = new Transport({
    endpoint: sandbox.url,
    credentials: { ...sandbox.credentials, managementKey: 'sandbox-management-key' },
    retry: { retries: 0 },
  });
  clients = new ApiClients(transport);
});
afterAll(async () => {
  await transport.close();
  await sandbox.close();
});

/** A value of each parameter type the parser takes. */
function paramText(p: ParamSpec): string {
  return { string: 'x', integer: '1', boolean: 'true', 'string[]': 'x', json: '{}' }[p.type];
}

/** Fields with a rule beyond their JSON type (a format, a nested shape): a value that keeps it. */
const FORMATTED: Readonly<Record<string, unknown>> = {
  startDate: '2026-01-01T00:00:00Z',
  endDate: '2026-02-01T00:00:00Z',
  created_at: '2026-01-01T00:00:00Z',
  exposureEvent: { event_type: 'x', filters: [] },
};

function fieldValue(f: BodyField): unknown {
  if (f.name in FORMATTED) return FORMATTED[f.name];
  return { string: 'x', boolean: false, number: 1, integer: 1, 'string[]': ['x'], object: {}, array: [], json: {} }[
    f.type
  ];
}

/** The smallest body the schema allows: its required fields, plus the first of `atLeastOneOf`. */
function smallest(schema: BodySchema): Record<string, unknown> {
  const fields = schema.fields.filter((f) => f.required || f.name === schema.atLeastOneOf?.[0]);
  return Object.fromEntries(fields.map((f) => [f.name, fieldValue(f)]));
}

function bodyOf(schema: BodySchema, element: Record<string, unknown>): unknown {
  return schema.shape === 'array' ? [element] : element;
}

async function run(op: Operation, body: unknown): Promise<unknown> {
  const args = OperationArgs.parse(
    op.params,
    op.params.filter((p) => p.required).map((p) => [p.name, paramText(p)] as const),
  );
  return op.run(clients, args, body, {}).then(
    () => null,
    (e: unknown) => e,
  );
}

const WITH_BODY = OPERATIONS.filter((op) => op.body !== undefined);

describe('the operations catalogue: help and checks from one schema', () => {
  it('every operation that takes a body has a schema, and its help text is that schema described', () => {
    expect(WITH_BODY.length).toBeGreaterThanOrEqual(20);
    for (const op of OPERATIONS) {
      expect(op.body === undefined, op.name).toBe(op.bodySchema === undefined);
      if (op.bodySchema) expect(op.body, op.name).toBe(describeBody(op.bodySchema));
    }
  });

  it.each(WITH_BODY.map((op) => [op.name, op] as const))(
    '%s: the smallest body passes, each required field is required, nothing else is',
    async (_name, op) => {
      const schema = op.bodySchema!;
      const small = smallest(schema);
      const ok = await run(op, bodyOf(schema, small));
      expect(ok instanceof ValidationError ? ok.message : null, op.name).toBeNull();
      for (const f of schema.fields.filter((x) => x.required)) {
        const { [f.name]: _gone, ...rest } = small;
        const err = await run(op, bodyOf(schema, rest));
        expect(err, `${op.name} without ${f.name}`).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).field, `${op.name} without ${f.name}`).toMatch(new RegExp(`(^|\\.)${f.name}$`));
      }
      if (!schema.open) {
        const err = await run(op, bodyOf(schema, { ...small, not_a_field: 1 }));
        expect(err, `${op.name} with an unlisted field`).toBeInstanceOf(ValidationError);
      }
      // Each optional field alone beside the smallest body is taken (none is required behind the help's back).
      for (const f of schema.fields.filter((x) => !x.required && !(x.name in small))) {
        const err = await run(op, bodyOf(schema, { ...small, [f.name]: fieldValue(f) }));
        expect(
          err instanceof ValidationError ? `${err.field}: ${err.message}` : null,
          `${op.name} with ${f.name}`,
        ).toBeNull();
      }
    },
  );
});
