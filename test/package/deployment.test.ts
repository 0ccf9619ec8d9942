/**
 * The deployment files follow the package and pass what a cluster checks: the image's tag in docs/DEPLOYMENT.md and the
 * README is package.json's version; the Dockerfile's base is a maintained Node LTS line pinned by digest, its user is
 * numeric and tini is PID 1; every manifest of docs/DEPLOYMENT.md is valid against the Kubernetes API's schemas (the
 * models of the npm package `kubernetes-models`), and the CronJob's pod passes the restricted Pod Security level
 * (./pod-security.ts) and keeps what a nightly job needs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CronJob } from 'kubernetes-models/batch/v1';
import { Namespace, Secret, ServiceAccount } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../src/util/package-root.js';
import { type PodSpec, restrictedViolations } from './pod-security.js';

const root = packageRoot();
const read = (file: string): Promise<string> => readFile(join(root, file), 'utf8');

type Manifest = { apiVersion: string; kind: string } & Record<string, unknown>;
interface CronJobShape {
  spec: {
    jobTemplate: {
      spec: {
        completions: number;
        parallelism: number;
        podFailurePolicy?: { rules: { action: string; onExitCodes?: { operator: string; values: number[] } }[] };
        template: {
          metadata?: unknown;
          spec: PodSpec & { containers: { env?: { name: string; value?: string }[] }[] };
        };
      };
    };
  };
}

/** The models that validate each kind the page may hold. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/ServiceAccount': ServiceAccount,
  'batch/v1/CronJob': CronJob,
};

let manifests: Manifest[] = [];
let cronJob: CronJobShape;

beforeAll(async () => {
  const page = await read('docs/DEPLOYMENT.md');
  const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  manifests = blocks.flatMap((block) =>
    parseAllDocuments(block).map((doc) => {
      expect(doc.errors, 'YAML errors').toEqual([]);
      return doc.toJSON() as Manifest;
    }),
  );
  cronJob = manifests.find((m) => m.kind === 'CronJob') as unknown as CronJobShape;
});

/** The CronJob's pod spec with `change` applied to a copy. */
function podWith(change: (pod: PodSpec & { containers: Record<string, unknown>[] }) => void): PodSpec {
  const pod = structuredClone(cronJob.spec.jobTemplate.spec.template.spec) as PodSpec & {
    containers: Record<string, unknown>[];
  };
  change(pod);
  return pod;
}

describe('docs/DEPLOYMENT.md', () => {
  test('every manifest is valid against its Kubernetes schema; a wrong type is refused', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(['CronJob', 'Namespace', 'Secret', 'ServiceAccount']);
    for (const m of manifests) {
      const Model = MODELS[`${m.apiVersion}/${m.kind}`];
      expect(Model, `${m.apiVersion} ${m.kind}`).toBeDefined();
      expect(() => new Model!(m as never).validate(), m.kind).not.toThrow();
    }
    const broken = structuredClone(cronJob) as unknown as { spec: { jobTemplate: { spec: Record<string, unknown> } } };
    broken.spec.jobTemplate.spec.completions = 'four';
    expect(() => new CronJob(broken as never).validate()).toThrow(/completions/);
  });

  test("the CronJob's pod passes the restricted Pod Security level, in a namespace that enforces it", () => {
    const namespace = manifests.find((m) => m.kind === 'Namespace') as unknown as {
      metadata: { labels: Record<string, string> };
    };
    expect(namespace.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    expect(restrictedViolations(cronJob.spec.jobTemplate.spec.template.spec)).toEqual([]);
  });

  test('the check refuses what the restricted level refuses (the CronJob as it was, and one setting at a time)', () => {
    const before = podWith((pod) => {
      delete pod.securityContext;
      for (const c of pod.containers) delete c.securityContext;
    });
    expect(restrictedViolations(before)).toEqual([
      'container archive: runAsNonRoot is not true',
      'container archive: allowPrivilegeEscalation is not false',
      'container archive: seccomp profile undefined',
      'container archive does not drop ALL capabilities',
    ]);
    const hostPath = podWith((pod) => pod.volumes?.push({ name: 'host', hostPath: { path: '/' } }));
    expect(restrictedViolations(hostPath)).toContain('volume host is a hostPath');
    const root = podWith((pod) => (pod.securityContext = { ...pod.securityContext, runAsUser: 0 }));
    expect(restrictedViolations(root)).toContain('the pod runs as uid 0');
  });

  test('shards within the API limit, exits 2 and 3 fail the Job at once, a writable /tmp, JSON logs', () => {
    const job = cronJob.spec.jobTemplate.spec;
    // 5 requests in flight per project: one each, and one left to the project's other clients.
    expect(job.completions).toBeLessThanOrEqual(4);
    expect(job.parallelism).toBeLessThanOrEqual(job.completions);
    const container = job.template.spec.containers[0]!;
    const shardCount = container.env?.find((e) => e.name === 'REPLAY_EXPORT_SHARD_COUNT')?.value;
    expect(shardCount).toBe(String(job.completions));
    const failJob = job.podFailurePolicy?.rules.find((r) => r.action === 'FailJob');
    expect(failJob?.onExitCodes).toMatchObject({ operator: 'In', values: [2, 3] });
    const mounts = (container as { volumeMounts?: { name: string; mountPath: string }[] }).volumeMounts ?? [];
    const tmp = mounts.find((m) => m.mountPath === '/tmp');
    expect(job.template.spec.volumes?.find((v) => v.name === tmp?.name)).toHaveProperty('emptyDir');
    expect((container as { args: string[] }).args.join(' ')).toMatch(/--log-format json/);
  });

  test('the CronJob runs in UTC, has a deadline and a memory limit', async () => {
    const yaml = (await read('docs/DEPLOYMENT.md')).match(/kind: CronJob[\s\S]*?```/)![0];
    expect(yaml).toMatch(/timeZone: Etc\/UTC/);
    expect(yaml).toMatch(/activeDeadlineSeconds: \d+/);
    expect(yaml).toMatch(/limits: \{ memory: "\d+[MG]i" \}/);
  });
});

describe('the image', () => {
  test('image tags are the package version; the base is Node 22 or 24 pinned by digest', async () => {
    const { version } = JSON.parse(await read('package.json')) as { version: string };
    const tags = [
      ...(await read('docs/DEPLOYMENT.md')).matchAll(/image: \S+replay-export:(\S+)/g),
      ...(await read('README.md')).matchAll(/replay-export:(\d\S*)\s/g),
    ].map((m) => m[1]);
    expect(tags.length).toBeGreaterThanOrEqual(2);
    for (const tag of tags) expect(tag).toBe(version);
    const dockerfile = await read('Dockerfile');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:(22|24)-slim@sha256:[0-9a-f]{64}$/m);
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const base of bases) expect(base).toBe('${NODE_IMAGE}');
  });

  test("a numeric user, the CronJob's uid; tini as PID 1", async () => {
    const dockerfile = await read('Dockerfile');
    const users = [...dockerfile.matchAll(/^USER (.+)$/gm)].map((m) => m[1]);
    expect(users).toEqual(['1000:1000']);
    expect(cronJob.spec.jobTemplate.spec.template.spec.securityContext?.runAsUser).toBe(1000);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--", "node", "dist\/bin\/replay-export\.js"\]$/m);
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends tini/);
  });
});
