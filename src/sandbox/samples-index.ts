import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SampleReplay as CatalogueEntry } from '../../samples/lib/catalogue.js';
import { SandboxConfigError } from './options.js';

/** One file of a sample: its key (file name, `<13-digit ms>-<seq>.json.gz`) and where it is on disk. */
export interface SampleFile {
  name: string;
  path: string;
}

/**
 * One replay of the catalogue as `samples/index.json` lists it, with its paths resolved and checked. The entry's
 * type comes from samples/ as a type-only import: that folder's code pulls playwright, which the sandbox never loads.
 */
export interface SampleReplay extends Omit<CatalogueEntry, 'expected' | 'files'> {
  /** Absolute path of the expected events (JSON array). */
  expectedPath: string;
  /** Files per version, sorted by key. */
  files: { 2: SampleFile[]; 3: SampleFile[] };
}

function fail(indexPath: string, message: string): never {
  throw new SandboxConfigError(`samples index ${indexPath}: ${message}`);
}

/** Reads and checks `<samplesDir>/index.json` (format in docs/ARCHITECTURE.md); every listed file must exist. */
export function loadSamplesIndex(samplesDir: string): SampleReplay[] {
  const indexPath = join(samplesDir, 'index.json');
  if (!existsSync(indexPath)) fail(indexPath, 'not found (record the samples first, or pass samplesDir)');
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(indexPath, 'utf8'));
  } catch (err) {
    fail(indexPath, `not valid JSON (${(err as Error).message})`);
  }
  const replays = (doc as { replays?: unknown }).replays;
  if (!Array.isArray(replays)) fail(indexPath, '"replays" must be an array');
  const names = new Set<string>();
  return replays.map((raw, i): SampleReplay => {
    const r = raw as Record<string, unknown>;
    const str = (k: string): string => {
      if (typeof r[k] !== 'string') fail(indexPath, `replays[${i}].${k} must be a string`);
      return r[k] as string;
    };
    const int = (k: string): number => {
      if (typeof r[k] !== 'number' || !Number.isInteger(r[k])) fail(indexPath, `replays[${i}].${k} must be an integer`);
      return r[k] as number;
    };
    const name = str('name');
    if (names.has(name)) fail(indexPath, `duplicate sample name ${name}`);
    names.add(name);
    const files = r.files as Record<string, unknown> | undefined;
    const list = (v: '2' | '3'): SampleFile[] => {
      const paths = files?.[v];
      if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) {
        fail(indexPath, `replays[${i}].files["${v}"] must be a non-empty array of paths`);
      }
      const out = (paths as string[]).map((p) => {
        const path = join(samplesDir, p);
        if (!existsSync(path)) fail(indexPath, `file not found: ${p}`);
        return { name: basename(p), path };
      });
      out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (let k = 1; k < out.length; k++) {
        if (out[k]!.name === out[k - 1]!.name) fail(indexPath, `duplicate file key ${out[k]!.name} in ${name} v${v}`);
      }
      return out;
    };
    const expectedPath = join(samplesDir, str('expected'));
    if (!existsSync(expectedPath)) fail(indexPath, `expected events not found: ${str('expected')}`);
    return {
      name,
      replay_id: str('replay_id'),
      device_id: str('device_id'),
      session_id: str('session_id'),
      platform_id: int('platform_id'),
      start_time: str('start_time'),
      end_time: str('end_time'),
      retention_in_days: int('retention_in_days'),
      event_count: int('event_count'),
      expectedPath,
      files: { 2: list('2'), 3: list('3') },
    };
  });
}
