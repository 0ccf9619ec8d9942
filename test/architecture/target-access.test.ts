/**
 * One way into a local target (issue #37): every read, write, listing and removal of a local target goes through the
 * target module, sinks/target/ (no link followed at any component, only regular files opened). A module outside it
 * that imports `node:fs` (or `fs`, `node:fs/promises`) at run time fails this test, unless it is listed below with
 * what it reaches instead of a target. Type-only imports reach nothing and are not counted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { importGraph, ROOT } from './import-graph.js';

/** The module that may reach a local target. */
const TARGET_MODULE = 'sinks/target/';

/** Modules that import `fs` for what is not a target path, each with its reason. */
const ALLOWED: readonly { file: string; reason: string }[] = [
  {
    file: 'sinks/hash-worker-main.ts',
    reason:
      'the hashing worker opens the file the target module hands it (/proc/self/fd/<fd> of the writer, or its path), refused unless it is that very regular file (device and inode)',
  },
  {
    file: 'sinks/process-files.ts',
    reason: "/proc of this host's processes, to tell whether a fold lock's holder lives",
  },
  { file: 'sinks/s3-manifest.ts', reason: "an S3 fold's scratch files, in a fresh folder of the OS temp dir" },
  {
    file: 'sinks/player-page.ts',
    reason: "rrweb's files the package ships (vendor/rrweb/), inlined into the player page",
  },
  { file: 'src/util/package-root.ts', reason: "the package's own package.json" },
  {
    file: 'src/util/peer-packages.ts',
    reason: "the package's own package.json (its peer ranges) and whether a project's package.json is above it",
  },
  {
    file: 'bin/cli/profiles.ts',
    reason: 'the profile store, a file of its own under the XDG config folder (0600, written by rename)',
  },
  {
    file: 'bin/cli/replay-ids.ts',
    reason: 'whether an argument that reads as a file path is one, to name it in a usage error',
  },
  { file: 'src/sandbox/samples-index.ts', reason: "the sandbox's samples catalogue (samples/ or the caller's folder)" },
  { file: 'src/sandbox/storage-route.ts', reason: 'the sample files the sandbox serves' },
  { file: 'src/redaction/policy.ts', reason: 'the redaction policy file the user names' },
  { file: 'src/video/source.ts', reason: 'an events file the user names (`video <file>`), read as input' },
  { file: 'src/video/render.ts', reason: "the render's scratch folder in the OS temp dir (the page, the frames)" },
  { file: 'src/catalogue/build.ts', reason: "the catalogue's file in the user's cache folder (never in the archive)" },
  { file: 'src/catalogue/catalogue.ts', reason: 'the catalogue cache folder and its files (never in the archive)' },
  { file: 'src/view/video.ts', reason: "a rendered video's scratch folder in the OS temp dir, sent and removed" },
  { file: 'bin/cli/commands/decode.ts', reason: "decode's input files, read as input" },
  { file: 'bin/cli/commands/api.ts', reason: 'a request body file the user names (`api --body @file`)' },
  { file: 'bin/cli/view-video.ts', reason: 'whether the browser the user names is an executable file' },
  {
    file: 'bin/cli/out-target.ts',
    reason:
      'tells what --out names (a folder, a file, nothing) before a command starts, to refuse a mistake as a usage error; the target is then opened through the target module',
  },
];

const FS_IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?!type\s)[^'"`;]*?from\s*['"](?:node:)?fs(?:\/promises)?['"]|import\(\s*['"](?:node:)?fs(?:\/promises)?['"]\s*\)|require\(\s*['"](?:node:)?fs(?:\/promises)?['"]\s*\)/m;

/** Whether a module's text imports `fs` at run time. */
function importsFs(text: string): boolean {
  return FS_IMPORT.test(text);
}

/** The modules outside the target module that import `fs` and are not allowed to. */
function unlistedFsImporters(files: readonly string[], read: (file: string) => string): string[] {
  const allowed = new Set(ALLOWED.map((a) => a.file));
  return files.filter((f) => !f.startsWith(TARGET_MODULE) && !allowed.has(f) && importsFs(read(f)));
}

describe('one way into a local target', () => {
  const files = [...importGraph().keys()];
  const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

  test('no module outside sinks/target/ imports fs, but those listed with their reason', () => {
    expect(unlistedFsImporters(files, read)).toEqual([]);
  });

  test('every listed module exists and still imports fs (the list holds no stale entry)', () => {
    for (const { file } of ALLOWED) expect(importsFs(read(file)), file).toBe(true);
  });

  test('the target module itself is where fs is used', () => {
    expect(files.filter((f) => f.startsWith(TARGET_MODULE) && importsFs(read(f))).length).toBeGreaterThan(0);
  });

  test('the check sees an import: runtime imports count, type-only imports do not', () => {
    for (const text of [
      "import { open } from 'node:fs/promises';",
      "import { constants, type Stats } from 'node:fs';",
      "import * as fs from 'fs';",
      "const fs = await import('node:fs');",
      "export { readFile } from 'node:fs/promises';",
    ]) {
      expect(importsFs(text), text).toBe(true);
      expect(unlistedFsImporters(['sinks/local.ts'], () => text)).toEqual(['sinks/local.ts']);
    }
    for (const text of ["import type { FileHandle } from 'node:fs/promises';", "import { x } from './fs.js';"]) {
      expect(importsFs(text), text).toBe(false);
    }
  });
});
