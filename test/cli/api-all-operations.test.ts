/**
 * Every operation of `replay-export api` called through the built CLI against ONE sandbox (issue #17).
 *
 * The calls are data: each file of test/cli/api-examples/ but types.ts exports `EXAMPLES` (one family's calls, in
 * the order they must run: a create before the update that uses it). A family's examples run one after another;
 * different families touch different state, so two families run at a time (the CI machine's two cores). Then every
 * name that `api --list` prints must have at least one example.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import PQueue from 'p-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperation } from '../../src/clients/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import type { ApiExample } from './api-examples/types.js';
import { runCli, runCliInProcess, type RunResult } from './cli-helpers.js';

const EXAMPLES_DIR = join(packageRoot(), 'test', 'cli', 'api-examples');
/** CLI calls at once, across families. */
const CALL_SLOTS = 2;
/** A CLI call that has not ended by then is interrupted and reported (a safety net, not a speed assertion). */
const CALL_DEADLINE_MS = 60_000;

/** The CLI flag for each credential the sandbox has: every one of them is passed, whatever the operation. */
const CREDENTIAL_FLAGS: Readonly<Record<string, string>> = {
  apiKey: '--api-key',
  secretKey: '--secret-key',
  managementKey: '--management-key',
};

interface Family {
  file: string;
  examples: readonly ApiExample[];
}

function examplesOf(file: string, mod: unknown): readonly ApiExample[] {
  const examples = (mod as { EXAMPLES?: unknown }).EXAMPLES;
  if (!Array.isArray(examples)) throw new Error(`test/cli/api-examples/${file} does not export an EXAMPLES array`);
  return examples as ApiExample[];
}

/** Every example file, in name order, with its examples in array order. */
async function loadFamilies(): Promise<Family[]> {
  const files = (await readdir(EXAMPLES_DIR)).filter((f) => f.endsWith('.ts') && f !== 'types.ts').sort();
  const families: Family[] = [];
  for (const file of files)
    families.push({ file, examples: examplesOf(file, await import(pathToFileURL(join(EXAMPLES_DIR, file)).href)) });
  return families;
}

const FAMILIES = await loadFamilies();

function connectionFlags(sb: Sandbox): string[] {
  const flags = ['--endpoint', sb.url];
  for (const [name, value] of Object.entries(sb.credentials)) {
    const flag = CREDENTIAL_FLAGS[name];
    if (flag === undefined)
      throw new Error(`the sandbox has a credential ${name} that this test cannot pass to the CLI`);
    flags.push(flag, value);
  }
  return flags;
}

async function call(example: ApiExample, flags: readonly string[]): Promise<RunResult> {
  return runCliInProcess(['api', example.operation, ...example.args, ...flags], {
    ...(example.stdin !== undefined ? { stdin: example.stdin } : {}),
    signal: AbortSignal.timeout(CALL_DEADLINE_MS),
  });
}

/**
 * What the CLI printed, as `check` receives it: CSV as text, NDJSON as an array, else one JSON value, or the text
 * of an answer that is not JSON (a mutation's `OK`).
 */
function parseOutput(example: ApiExample, stdout: string): unknown {
  if (findOperation(example.operation)?.output === 'csv') return stdout;
  if (example.args.includes('--paginate'))
    return stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as unknown);
  if (stdout === '') return undefined;
  try {
    return JSON.parse(stdout) as unknown;
  } catch {
    return stdout;
  }
}

/** Runs one example; returns why it failed, or undefined when it passed. */
async function runExample(example: ApiExample, flags: readonly string[]): Promise<string | undefined> {
  const shown = `api ${example.operation} ${example.args.join(' ')}`;
  const res = await call(example, flags);
  if (res.code !== 0) return `${shown}: exit ${res.code ?? res.signal}\n${res.stderr}`;
  try {
    example.check(parseOutput(example, res.stdout));
    return undefined;
  } catch (err) {
    return `${shown}: ${err instanceof Error ? err.message : String(err)}\nstdout: ${res.stdout.slice(0, 2000)}`;
  }
}

describe('replay-export api: every operation through the CLI against one sandbox', () => {
  let sb: Sandbox;
  let flags: string[];
  const slots = new PQueue({ concurrency: CALL_SLOTS });
  beforeAll(async () => {
    sb = await startSandbox({});
    flags = connectionFlags(sb);
  });
  afterAll(async () => {
    await sb?.close();
  });

  describe.concurrent('examples of each family, in order', () => {
    for (const family of FAMILIES) {
      it(`${family.file} (${family.examples.length} calls)`, {
        timeout: CALL_DEADLINE_MS * Math.max(1, family.examples.length),
      }, async () => {
        expect(family.examples.length, `${family.file} has no examples`).toBeGreaterThan(0);
        const failures: string[] = [];
        for (const example of family.examples) {
          const failure = await slots.add(() => runExample(example, flags));
          if (failure !== undefined) failures.push(failure);
        }
        expect(
          failures.length,
          `${failures.length} of ${family.examples.length} calls failed:\n\n${failures.join('\n\n')}`,
        ).toBe(0);
      });
    }
  });

  it('every operation that api --list prints has an example', async () => {
    const res = await runCli(['api', '--list']);
    expect(res.code, res.stderr).toBe(0);
    const listed = res.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(/\s+/)[0]!);
    expect(listed.length).toBeGreaterThan(0);
    const covered = new Set(FAMILIES.flatMap((f) => f.examples.map((e) => e.operation)));
    const missing = listed.filter((name) => !covered.has(name));
    expect(
      missing.length,
      `${missing.length} operations have no example in test/cli/api-examples/:\n${missing.join('\n')}\n`,
    ).toBe(0);
  });
});
