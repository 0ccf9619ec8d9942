import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

describe('the committed WebAssembly build', () => {
  it('is up to date: the generated sources, and the module built from decoders/wasm/ with the locked compiler', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, 'scripts', 'build-wasm.mjs'), '--check'],
      { cwd: root },
    );
    expect(stdout).toMatch(/wasm-module\.ts: up to date/);
    expect(stdout).toMatch(/trailing-timestamp\.ts: up to date/);
    expect(stdout).toMatch(/json-grammar\.ts: up to date/);
    expect(stdout).toMatch(/json-steps\.ts: up to date/);
  });
});
