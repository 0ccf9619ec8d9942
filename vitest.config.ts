import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { PROJECTS, type ProjectName, SHARED_GRAPH } from './test/projects.js';

/** One vitest project of the suite (test/projects.ts says which files; docs/TESTING.md how to run them). */
function project(name: ProjectName) {
  const include = PROJECTS[name].map((file) => `test/${file}`);
  return { extends: true as const, test: { name, include, isolate: !SHARED_GRAPH.includes(name) } };
}

export default defineConfig({
  test: {
    projects: [
      // One module graph per worker, not per file, for the projects of SHARED_GRAPH (test/projects.ts says why).
      project('unit'),
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
