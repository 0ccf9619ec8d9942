import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/**
 * The 22 management operations of one kind through `replay-export api`, in an order where each call finds what the
 * ones before made. The sandbox numbers experiments from 10001 and flags from 20001 in the order created, and stores a
 * version per change, numbered from 1 (docs/SANDBOX.md): that is how these calls can name ids before they exist.
 * flags.ts runs the same calls for flags.
 */
export function managementExamples(kind: 'experiments' | 'flags'): ApiExample[] {
  const id = String(kind === 'experiments' ? 10001 : 20001);
  const second = String(kind === 'experiments' ? 10002 : 20002);
  const p = (...pairs: string[]): string[] => pairs.flatMap((pair) => ['--param', pair]);
  const body = (value: unknown): Pick<ApiExample, 'args' | 'stdin'> => ({
    args: ['--body', '-'],
    stdin: JSON.stringify(value),
  });
  const mutation = (operation: string, args: string[], stdin?: unknown): ApiExample => ({
    operation: `${kind}.${operation}`,
    args: stdin === undefined ? args : [...args, '--body', '-'],
    ...(stdin === undefined ? {} : { stdin: JSON.stringify(stdin) }),
    check: (result) => expect(result).toBe('OK\n'), // a mutation answers the text `OK`: the CLI prints it
  });
  const read = (operation: string, args: string[], check: (result: unknown) => void): ApiExample => ({
    operation: `${kind}.${operation}`,
    args,
    check,
  });
  const segment =
    kind === 'flags'
      ? {
          name: 'new app',
          conditions: [{ prop: 'version', op: 'version greater than or equal to', type: 'property', values: ['2.0'] }],
          percentage: 100,
        }
      : {
          name: 'France',
          conditions: [{ prop: 'country', op: 'is', type: 'property', values: ['France'] }],
          percentage: 50,
        };
  const create = {
    projectId: '123456',
    key: 'cli-checkout',
    name: 'Checkout button',
    variants: [{ key: 'control' }],
    rolloutWeights: { control: 1 },
    targetSegments: [segment],
    evaluationMode: 'remote',
    ...(kind === 'experiments' ? { experimentType: 'a-b-test' } : {}),
  };
  return [
    {
      operation: `${kind}.create`,
      ...body(create),
      check: (result) =>
        expect(result).toEqual({ id, url: expect.stringMatching(new RegExp(`/api/1/${kind}/${id}$`)) }),
    },
    {
      operation: `${kind}.create`,
      ...body({ projectId: '123456', key: 'cli-second' }),
      check: (result) => expect(result).toMatchObject({ id: second }),
    },
    mutation('update', p(`id=${id}`), {
      enabled: true,
      rolloutPercentage: 50,
      ...(kind === 'flags' ? { bucketingUnit: 'org' } : { stickyBucketing: true }),
    }),
    read('get', p(`id=${id}`), (result) =>
      expect(result).toMatchObject({
        id,
        key: 'cli-checkout',
        name: 'Checkout button',
        enabled: true,
        rolloutPercentage: 50,
        targetSegments: [segment],
        createdAt: expect.any(String),
      }),
    ),
    read('list', p('limit=1'), (result) =>
      expect(result).toEqual([expect.objectContaining({ id: second, key: 'cli-second' })]),
    ),
    mutation('variants.create', p(`id=${id}`), {
      key: 'treatment',
      name: 'Treatment',
      payload: { color: 'green' },
      rolloutWeight: 1,
    }),
    mutation('variants.update', p(`id=${id}`, 'variantKey=treatment'), { description: 'the green button' }),
    read('variants.get', p(`id=${id}`, 'variantKey=treatment'), (result) =>
      expect(result).toEqual({
        key: 'treatment',
        name: 'Treatment',
        description: 'the green button',
        payload: { color: 'green' },
        rolloutWeight: 1,
      }),
    ),
    read('variants.list', p(`id=${id}`), (result) =>
      expect((result as Array<{ key: string }>).map((v) => v.key)).toEqual(['control', 'treatment']),
    ),
    mutation('variants.users.add', p(`id=${id}`, 'variantKey=treatment', 'inclusions=user-1,user-2,device-3')),
    // userIndex: the position in the list that variants.users.list answers (from 0): user-2.
    mutation('variants.users.remove', p(`id=${id}`, 'variantKey=treatment', 'userIndex=1')),
    mutation('variants.users.bulk-remove', p(`id=${id}`, 'variantKey=treatment', 'users=device-3')),
    read('variants.users.list', p(`id=${id}`, 'variantKey=treatment'), (result) =>
      expect(result).toEqual([{ index: 0, inclusion: 'user-1' }]),
    ),
    mutation('variants.users.remove-all', p(`id=${id}`, 'variantKey=treatment')),
    mutation('variants.cohorts.add', p(`id=${id}`, 'variantKey=treatment', 'cohortIds=cohort-a,cohort-b')),
    mutation('variants.cohorts.bulk-remove', p(`id=${id}`, 'variantKey=treatment', 'cohortIds=cohort-a')),
    read('variants.cohorts.list', p(`id=${id}`, 'variantKey=treatment'), (result) =>
      expect(result).toEqual(['cohort-b']),
    ),
    mutation('deployments.add', p(`id=${id}`, 'deploymentIds=deploy-web,deploy-ios')),
    mutation('deployments.remove', p(`id=${id}`, 'deploymentId=deploy-web')),
    read('deployments.list', p(`id=${id}`), (result) => expect(result).toEqual([{ id: 'deploy-ios' }])),
    mutation('variants.delete', p(`id=${id}`, 'variantKey=control')),
    // The create, then 12 changes: 13 versions, newest first.
    read('versions.list', p(`id=${id}`), (result) =>
      expect((result as Array<{ version: number }>).map((v) => v.version)).toEqual(
        Array.from({ length: 13 }, (_, i) => 13 - i),
      ),
    ),
    read('versions.get', p(`id=${id}`, 'versionId=1'), (result) =>
      expect(result).toMatchObject({
        id: '1',
        version: 1,
        config: { id, key: 'cli-checkout', enabled: false, variants: [{ key: 'control' }] },
      }),
    ),
  ];
}

export const EXAMPLES: readonly ApiExample[] = managementExamples('experiments');
