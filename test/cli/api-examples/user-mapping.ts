import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/** The answer of map / unmap: one per batch, the status and the body parsed as JSON (docs/SANDBOX.md shows it). */
function answered(counts: { mapped: number; unmapped: number }): (result: unknown) => void {
  return (result) => expect(result).toEqual({ code: 200, ...counts });
}

const user = (user_id: string) => ({ platform_id: expect.any(Number), user_id });

/** User mapping through `replay-export api`: map two users to one global user, read it back, unmap one. */
export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'user-mapping.map',
    args: ['--body', '-'],
    stdin: JSON.stringify([
      { user_id: 'cli-phone', global_user_id: 'cli-alice' },
      { user_id: 'cli-web', global_user_id: 'cli-alice' },
    ]),
    check: answered({ mapped: 2, unmapped: 0 }),
  },
  {
    operation: 'user-mapping.get',
    args: ['--param', 'userIds=cli-alice,cli-phone'],
    check: (result) =>
      expect(result).toEqual({
        'cli-alice': { mapped_from: [user('cli-phone'), user('cli-web')], mapped_to: [] },
        'cli-phone': { mapped_from: [], mapped_to: [user('cli-alice')] },
      }),
  },
  {
    operation: 'user-mapping.unmap',
    args: ['--param', 'userIds=cli-phone', '--param', 'encoding=form'],
    check: answered({ mapped: 0, unmapped: 1 }),
  },
  {
    operation: 'user-mapping.get',
    args: ['--param', 'userIds=["cli-alice"]'],
    check: (result) => expect(result).toEqual({ 'cli-alice': { mapped_from: [user('cli-web')], mapped_to: [] } }),
  },
];
