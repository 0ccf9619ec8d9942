/**
 * What the tests of captured assets on S3 start: the captured page's site on loopback, a sandbox listing one recording
 * of it, and an s3rver, in a temporary folder; `close` stops them all (safe when the test stopped the site itself).
 */
import { join } from 'node:path';
import { serveFolder, type StaticServer } from '../../samples/lib/static-server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { recordingSamplesDir } from '../redaction/recording.js';
import { startS3, type S3Server } from '../s3-cli/s3-helpers.js';
import { capturedPageRecording, writeCapturedSite } from './captured-page.js';

export interface CapturedS3 {
  work: { dir: string; cleanup: () => Promise<void> };
  site: StaticServer;
  samples: ReturnType<typeof recordingSamplesDir>;
  sandbox: Sandbox;
  s3: S3Server;
  close(): Promise<void>;
}

export async function startCapturedS3(name: string): Promise<CapturedS3> {
  const work = await tempDir(`replay-export-${name}-`);
  const root = join(work.dir, 'site');
  writeCapturedSite(root);
  const site = await serveFolder(root, 0);
  const samples = recordingSamplesDir('captured', capturedPageRecording(site.origin, Date.UTC(2026, 10, 20, 9, 0, 0)));
  const sandbox = await startSandbox({ samplesDir: samples.dir });
  const s3 = await startS3(join(work.dir, 's3'));
  return {
    work,
    site,
    samples,
    sandbox,
    s3,
    close: async () => {
      await s3.stop();
      await sandbox.close();
      await site.close().catch(() => undefined);
      samples.cleanup();
      await work.cleanup();
    },
  };
}
