import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { PROJECTS, type ProjectName } from './test/projects.js';

/** One vitest project of the suite (test/projects.ts says which files; docs/TESTING.md how to run them). */
function project(name: ProjectName, options: { isolate?: boolean } = {}) {
  return { extends: true as const, test: { name, include: PROJECTS[name].map((file) => `test/${file}`), ...options } };
}

export default defineConfig({
  test: {
    projects: [
      // Units keep no state between files: one module graph per worker, not one per file.
      project('unit', { isolate: false }),
      project('http'),
      project('s3'),
      project('chromium'),
      project('cli'),
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The suite starts real servers (sandbox, s3rver, Chromium); two cores.
    maxWorkers: 2,
    // s3rver (the S3 tests' server, in the worker) makes listing continuation tokens with DES, which OpenSSL 3 has
    // only in its legacy provider: without it every listing past 1,000 keys fails with a 500.
    execArgv: ['--openssl-legacy-provider'],
    // Archives' catalogues (view, find) go to a folder of the OS temp dir, never the user's ~/.cache.
    env: { REPLAY_EXPORT_CATALOGUE_DIR: join(tmpdir(), 'replay-export-test-catalogues') },
  },
});
