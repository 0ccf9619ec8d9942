import { createReadStream, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeEventBytes, decodeEvents, type FileVersion } from '../../decoders/index.js';

const samplesDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'samples');
const indexPath = join(samplesDir, 'index.json');

interface SampleReplay {
  name: string;
  event_count: number;
  expected: string;
  files: Record<string, string[]>;
}

// The samples are part of the repository: a missing index.json is a failure, not a skip.
const replays: SampleReplay[] = (JSON.parse(readFileSync(indexPath, 'utf8')) as { replays: SampleReplay[] }).replays;

describe('real recorded samples (samples/index.json)', () => {
  it('lists replays', () => {
    expect(replays.length).toBeGreaterThan(0);
  });

  for (const replay of replays) {
    for (const version of [3, 2] as const) {
      it(`${replay.name}: version ${version} files decode to samples/${replay.expected}`, async () => {
        const expected = JSON.parse(readFileSync(join(samplesDir, replay.expected), 'utf8')) as unknown[];
        const files = [...(replay.files[String(version)] ?? [])].sort((a, b) => (basename(a) < basename(b) ? -1 : 1));
        expect(files.length).toBeGreaterThan(0);
        const events: unknown[] = [];
        const bytes: unknown[] = [];
        for (const rel of files) {
          const seen: FileVersion[] = [];
          for await (const e of decodeEvents(createReadStream(join(samplesDir, rel)), {
            file: rel,
            onVersion: (v) => seen.push(v),
          })) {
            events.push(e);
          }
          for await (const batch of decodeEventBytes(createReadStream(join(samplesDir, rel), { highWaterMark: 1021 }), {
            version,
          })) {
            for (const b of batch) bytes.push(JSON.parse(b.toString('utf8')));
          }
          expect(seen).toEqual([version]);
        }
        expect(events.length).toBe(replay.event_count);
        expect(events).toEqual(expected);
        expect(bytes).toEqual(expected);
      });
    }
  }
});
