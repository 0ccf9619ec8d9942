/**
 * The deployment files follow the package: the image's tag in docs/DEPLOYMENT.md and the README is package.json's
 * version, the Dockerfile's base a maintained Node LTS line (22 or 24), and the CronJob keeps what a nightly job needs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const read = (file: string): Promise<string> => readFile(join(root, file), 'utf8');

test('image tags are the package version; the image is built on Node 22 or 24', async () => {
  const { version } = JSON.parse(await read('package.json')) as { version: string };
  const deployment = await read('docs/DEPLOYMENT.md');
  const tags = [
    ...deployment.matchAll(/image: \S+replay-export:(\S+)/g),
    ...(await read('README.md')).matchAll(/replay-export:(\d\S*)\s/g),
  ].map((m) => m[1]);
  expect(tags.length).toBeGreaterThanOrEqual(2);
  for (const tag of tags) expect(tag).toBe(version);
  const bases = [...(await read('Dockerfile')).matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  expect(bases.length).toBe(2);
  for (const base of bases) expect(base).toMatch(/^node:(22|24)-slim$/);
});

test('the CronJob runs in UTC, has a deadline, logs JSON and a memory limit', async () => {
  const yaml = /```yaml\n([\s\S]*?)```/.exec(await read('docs/DEPLOYMENT.md'))![1]!;
  expect(yaml).toMatch(/timeZone: Etc\/UTC/);
  expect(yaml).toMatch(/activeDeadlineSeconds: \d+/);
  expect(yaml).toMatch(/"--log-format", "json"/);
  expect(yaml).toMatch(/limits: \{ memory: "\d+[MG]i" \}/);
});
