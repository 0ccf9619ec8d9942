/**
 * Records REAL rrweb sessions of the pages in `samples/pages/` in headless Chromium and writes them in the
 * layout of docs/ARCHITECTURE.md ("samples/ layout"): expected events, version 3 and version 2 files, and
 * `samples/index.json`. Run with `npm run build && npm run samples`.
 *
 * Options: `--screenshot <file.png>` saves one screenshot taken while recording `intl-image`.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/util/package-root.js';
import { openRecorder } from './lib/browser-recorder.js';
import type { SampleCatalogue, SampleReplay } from './lib/catalogue.js';
import { SCENARIOS } from './lib/scenarios.js';
import { serveFolder } from './lib/static-server.js';
import { writeReplay } from './lib/write-replay.js';

const PREFERRED_PORT = 47613;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { screenshot: { type: 'string' } } });
  const samplesRoot = join(packageRoot(), 'samples');
  const server = await serveFolder(join(samplesRoot, 'pages'), PREFERRED_PORT);
  const recorder = await openRecorder().catch(async (err: unknown) => {
    await server.close();
    throw err;
  });
  const recorded: { name: string; events: Awaited<ReturnType<typeof recorder.record>>; retention: 30 | 90 }[] = [];
  try {
    for (const scenario of SCENARIOS) {
      const ctx =
        scenario.name === 'intl-image' && values.screenshot !== undefined ? { screenshot: values.screenshot } : {};
      const events = await recorder.record(scenario, server.origin, ctx);
      process.stdout.write(`recorded ${scenario.name}: ${events.length} events\n`);
      recorded.push({ name: scenario.name, events, retention: scenario.retentionInDays });
    }
  } finally {
    await recorder.close();
    await server.close();
  }

  // Everything recorded: only now replace the previous output.
  await rm(join(samplesRoot, 'expected'), { recursive: true, force: true });
  await rm(join(samplesRoot, 'files'), { recursive: true, force: true });
  await mkdir(join(samplesRoot, 'expected'), { recursive: true });
  const replays: SampleReplay[] = [];
  for (const r of recorded) {
    replays.push(await writeReplay(samplesRoot, { name: r.name, events: r.events, retentionInDays: r.retention }));
  }
  const catalogue: SampleCatalogue = { replays };
  await writeFile(join(samplesRoot, 'index.json'), JSON.stringify(catalogue, null, 2) + '\n');
  process.stdout.write(`wrote ${replays.length} replays to ${samplesRoot}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`samples: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
