/**
 * Replay ids the CLI cannot send. A process's arguments arrive as UTF-8, so a lone UTF-16 surrogate can only reach the
 * CLI's code in-process (through `main`, as a wrapper script would call it); it must still be a usage error (exit 2)
 * naming the id, never a raw "URI malformed".
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { EXIT, main } from '../../bin/cli/program.js';
import { tempDir } from '../pipeline/helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `main` and returns its exit code and what it wrote to stderr. */
async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  const code = await main(['node', 'replay-export', ...args]);
  return { code, stderr };
}

describe('a replay id holding a lone surrogate', () => {
  test('export and list exit 2 with a validation error naming replay_id', async () => {
    const work = await tempDir('replay-export-id-');
    try {
      const id = 'device-1/1700000000000\ud800';
      for (const args of [
        ['--sandbox', 'export', id, '--out', work.dir],
        ['--sandbox', 'list', '--replay', id],
      ]) {
        const res = await run(args);
        expect(res.code, res.stderr).toBe(EXIT.usage);
        expect(res.stderr).toContain('Invalid replay_id');
        expect(res.stderr).toContain('surrogate');
        expect(res.stderr).not.toContain('URI malformed');
      }
    } finally {
      await work.cleanup();
    }
  });
});
