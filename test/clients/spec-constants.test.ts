/**
 * docs/CLIENTS.md's "Limits" table against src/util/spec-constants.ts, the one table the clients and the sandbox
 * import: every row names a constant whose value is the row's, and every number of the constants has a row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import * as SPEC from '../../src/util/spec-constants.js';

function limitsRows(): { value: number; constant: string }[] {
  const doc = readFileSync(join(packageRoot(), 'docs', 'CLIENTS.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Limits\n'), doc.indexOf('\n## Assumptions\n'));
  expect(section.length).toBeGreaterThan(100);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && line.includes('`') && !line.startsWith('| Limit'))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      return { value: Number(cells[2]!.replace(/,/g, '')), constant: /^`(.+)`$/.exec(cells[3]!)![1]! };
    });
}

function valueAt(path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], SPEC);
}

/** Every number in the constants, by dotted path (`MAPPING_SPEC.perWindow`), besides MB and the cost table. */
function numbers(): string[] {
  const out: string[] = [];
  const walk = (prefix: string, v: unknown): void => {
    if (typeof v === 'number') out.push(prefix);
    else if (v && typeof v === 'object' && !Array.isArray(v))
      for (const [k, x] of Object.entries(v)) walk(`${prefix}.${k}`, x);
  };
  for (const [name, v] of Object.entries(SPEC)) if (name.endsWith('_SPEC')) walk(name, v);
  return out.filter((p) => !p.startsWith('TAXONOMY_SPEC.cost.') && p !== 'TAXONOMY_SPEC.windowMs');
}

describe('docs/CLIENTS.md limits table', () => {
  it('every row is the value of the constant it names', () => {
    const rows = limitsRows();
    expect(rows.length).toBeGreaterThanOrEqual(20);
    for (const { value, constant } of rows) expect(valueAt(constant), constant).toBe(value);
  });

  it('every limit among the constants has its row', () => {
    const named = new Set(limitsRows().map((r) => r.constant));
    expect(numbers().filter((p) => !named.has(p))).toEqual([]);
  });
});
