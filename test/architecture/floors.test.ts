/**
 * The floors (docs/ARCHITECTURE.md): a module imports only modules of its own part or of a lower floor, and the
 * import graph (type-only imports included) has no cycle.
 */
import { describe, expect, test } from 'vitest';
import { cycles, importGraph } from './import-graph.js';

/**
 * Each part's floor, most specific prefix first. The sandbox stands aside: only bin/ (and bench/, test/) import it.
 * `forget` lives in src/pipeline/ but is a tool: the pipeline never imports it.
 */
const FLOORS: readonly (readonly [prefix: string, floor: number])[] = [
  ['decoders/', 0],
  ['sinks/', 0],
  ['src/util/', 0],
  ['src/errors.ts', 0],
  ['src/error-codes.ts', 0],
  ['src/events.ts', 0],
  ['src/http/', 1],
  ['src/replay/', 2],
  ['src/clients/', 3],
  ['src/redaction/', 3],
  ['src/assets/', 3],
  ['src/catalogue/', 3],
  ['src/pipeline/forget.ts', 5],
  ['src/pipeline/', 4],
  ['src/verify/', 5],
  ['src/view/', 5],
  ['src/sandbox/', 5],
  // The video export reads archives and files with the view's readers: a tool above the tools.
  ['src/video/', 6],
  ['src/archive.ts', 6],
  ['src/index.ts', 6],
  ['bin/', 7],
];

function floorOf(file: string): number {
  const hit = FLOORS.find(([prefix]) => file === prefix || file.startsWith(prefix));
  if (hit === undefined) throw new Error(`no floor for ${file}: add its part to FLOORS`);
  return hit[1];
}

function partOf(file: string): string {
  return FLOORS.find(([prefix]) => file === prefix || file.startsWith(prefix))![0];
}

/** Imports allowed across the rule, each with its reason. */
const ALLOWED: ReadonlySet<string> = new Set<string>([]);

/** The imports that go up a floor, or sideways into another part of the same floor, or into the sandbox from below bin/. */
export function floorViolations(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [file, imports] of graph) {
    const floor = floorOf(file);
    for (const target of imports) {
      if (!graph.has(target)) continue;
      const edge = `${file} → ${target}`;
      if (ALLOWED.has(edge) || partOf(file) === partOf(target)) continue;
      const up = floorOf(target) > floor;
      const sideways = floorOf(target) === floor && floor !== 0;
      const sandbox = target.startsWith('src/sandbox/') && !file.startsWith('bin/');
      if (up || sideways || sandbox) bad.push(edge);
    }
  }
  return bad;
}

describe('the floors', () => {
  test('no import goes up a floor or sideways between parts of one floor', () => {
    expect(floorViolations(importGraph())).toEqual([]);
  });

  test('decoders/ and sinks/ import nothing but themselves, src/util and the error base', () => {
    const graph = importGraph();
    const bad = [...graph].flatMap(([file, imports]) =>
      file.startsWith('decoders/') || file.startsWith('sinks/')
        ? imports
            .filter(
              (t) =>
                graph.has(t) &&
                !t.startsWith('decoders/') &&
                !t.startsWith('sinks/') &&
                !t.startsWith('src/util/') &&
                t !== 'src/errors.ts' &&
                t !== 'src/error-codes.ts',
            )
            .map((t) => `${file} → ${t}`)
        : [],
    );
    expect(bad).toEqual([]);
  });

  test('the check sees a violation: an upward import is reported', () => {
    const graph = new Map([
      ['src/http/transport.ts', ['src/pipeline/run.ts']],
      ['src/pipeline/run.ts', []],
    ]);
    expect(floorViolations(graph)).toEqual(['src/http/transport.ts → src/pipeline/run.ts']);
  });
});

describe('no cycles', () => {
  test('the import graph, type-only imports included, has no cycle', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  test('the check sees a cycle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
