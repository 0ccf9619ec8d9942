/**
 * The `view` index prints manifest fields, and a manifest is input (hand-edited, or written by anyone with write
 * access to the target): every field it prints is escaped (issue #28, finding 5: a `status` injected a meta refresh
 * that navigated the browser away).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../sinks/index.js';
import { openCatalogue } from '../../src/catalogue/index.js';
import { renderIndex } from '../../src/view/index-page.js';
import { parseIndexQuery } from '../../src/view/server.js';
import { tempDir } from '../pipeline/helpers.js';

const HOSTILE = '<meta http-equiv="refresh" content="0;url=https://tracker.example/">';
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  work = await tempDir('replay-export-view-escape-');
  const lines = [
    {
      replay_id: 'dev/1795308171251',
      status: HOSTILE,
      recorded_at: '2026-11-27T00:00:00.000Z',
      start_time: '2026-11-26T00:00:00.000Z',
    },
    {
      replay_id: `dev${HOSTILE}/1795308171252`,
      status: 'failed',
      recorded_at: '2026-11-27T00:00:00.000Z',
      error: { code: HOSTILE, message: HOSTILE },
    },
  ];
  await writeFile(join(work.dir, 'manifest.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});

afterAll(async () => {
  await work?.cleanup();
});

describe('the view index and a hostile manifest', () => {
  it('prints every field escaped: no markup of the manifest reaches the page', async () => {
    const archive = await openArchive(work.dir, { create: false });
    const catalogue = await openCatalogue(archive, { dir: join(work.dir, 'cache') });
    await archive.close();
    const params = new URLSearchParams('');
    const { query } = parseIndexQuery(params);
    const html = renderIndex('archive', { params, sort: '-start' }, catalogue.page(query, 1, 100));
    catalogue.close();
    expect(html).not.toContain('<meta http-equiv="refresh"');
    expect(html).toContain('&#60;meta http-equiv=');
  });
});
