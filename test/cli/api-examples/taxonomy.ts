import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/**
 * The 27 taxonomy operations through `replay-export api`, against the sandbox's in-memory schema: each kind is created,
 * read, changed, deleted and restored in that order. Category ids count from 1 in a fresh sandbox (the examples make
 * the only categories). Writes answer `{success: true}`, printed as nothing.
 */
const body = (value: unknown): Pick<ApiExample, 'args' | 'stdin'> => ({
  args: ['--body', '-'],
  stdin: JSON.stringify(value),
});
/** A taxonomy mutation prints the API's answer, `{success: true}`. */
const printsSuccess = (result: unknown): void => expect(result).toEqual({ success: true });
const EVENT = 'Checkout Started';

/** A taxonomy read's `data` (the answer is `{success: true, data}`), handed to `check`. */
const read =
  (check: (data: unknown) => void) =>
  (answer: unknown): void => {
    expect(answer).toMatchObject({ success: true });
    check((answer as { data: unknown }).data);
  };

export const EXAMPLES: readonly ApiExample[] = [
  { operation: 'taxonomy.categories.create', args: ['--param', 'categoryName=Checkout Flow'], check: printsSuccess },
  { operation: 'taxonomy.categories.create', args: ['--param', 'categoryName=Onboarding Flow'], check: printsSuccess },
  {
    operation: 'taxonomy.categories.list',
    args: [],
    check: read((r) =>
      expect(r).toEqual([
        { id: 1, name: 'Checkout Flow' },
        { id: 2, name: 'Onboarding Flow' },
      ]),
    ),
  },
  {
    operation: 'taxonomy.categories.get',
    args: ['--param', 'categoryName=Checkout Flow'],
    check: read((r) => expect(r).toEqual({ id: 1, name: 'Checkout Flow' })),
  },
  {
    operation: 'taxonomy.categories.update',
    args: ['--param', 'categoryId=2', '--param', 'categoryName=Onboarding'],
    check: printsSuccess,
  },
  { operation: 'taxonomy.categories.delete', args: ['--param', 'categoryId=2'], check: printsSuccess },

  {
    operation: 'taxonomy.event-types.create',
    ...body({ event_type: EVENT, category: 'Checkout Flow', description: 'cart to payment' }),
    check: printsSuccess,
  },
  {
    operation: 'taxonomy.event-types.list',
    args: [],
    check: read((r) =>
      expect(r).toContainEqual(
        expect.objectContaining({ event_type: EVENT, category: { name: 'Checkout Flow' }, is_active: true }),
      ),
    ),
  },
  {
    operation: 'taxonomy.event-types.get',
    args: ['--param', `eventType=${EVENT}`],
    check: read((r) =>
      expect(r).toMatchObject({ event_type: EVENT, description: 'cart to payment', display_name: null, tags: [] }),
    ),
  },
  {
    operation: 'taxonomy.event-types.update',
    args: ['--param', `eventType=${EVENT}`, '--body', '-'],
    stdin: JSON.stringify({ display_name: 'Checkout' }),
    check: printsSuccess,
  },
  { operation: 'taxonomy.event-types.delete', args: ['--param', `eventType=${EVENT}`], check: printsSuccess },
  {
    operation: 'taxonomy.event-types.list',
    args: ['--param', 'showDeleted=true'],
    check: read((r) =>
      expect(r).toContainEqual(
        expect.objectContaining({ event_type: EVENT, display_name: 'Checkout', is_active: false }),
      ),
    ),
  },
  { operation: 'taxonomy.event-types.restore', args: ['--param', `eventType=${EVENT}`], check: printsSuccess },

  {
    operation: 'taxonomy.event-properties.create',
    ...body({ event_type: EVENT, event_property: 'cart_value', type: 'number', classifications: ['revenue'] }),
    check: printsSuccess,
  },
  {
    operation: 'taxonomy.event-properties.list',
    args: ['--param', `eventType=${EVENT}`],
    check: read((r) =>
      expect(r).toEqual([
        expect.objectContaining({ event_property: 'cart_value', event_type: EVENT, classifications: ['revenue'] }),
      ]),
    ),
  },
  {
    operation: 'taxonomy.event-properties.get',
    args: ['--param', 'eventProperty=cart_value', '--param', `eventType=${EVENT}`],
    check: read((r) =>
      expect(r).toMatchObject({ event_property: 'cart_value', type: 'number', is_required: false, is_hidden: false }),
    ),
  },
  {
    operation: 'taxonomy.event-properties.update',
    args: ['--param', 'eventProperty=cart_value', '--body', '-'],
    stdin: JSON.stringify({ event_type: EVENT, description: 'total of the cart' }),
    check: printsSuccess,
  },
  {
    operation: 'taxonomy.event-properties.delete',
    args: ['--param', 'eventProperty=cart_value', '--param', `eventType=${EVENT}`],
    check: printsSuccess,
  },
  {
    operation: 'taxonomy.event-properties.restore',
    args: ['--param', 'eventProperty=cart_value'],
    check: printsSuccess,
  },

  {
    operation: 'taxonomy.user-properties.create',
    ...body({ user_property: 'tier', type: 'string', description: 'plan tier' }),
    check: printsSuccess,
  },
  {
    operation: 'taxonomy.user-properties.list',
    args: [],
    check: read((r) => expect(r).toContainEqual(expect.objectContaining({ user_property: 'gp:tier', deleted: false }))),
  },
  {
    operation: 'taxonomy.user-properties.get',
    args: ['--param', 'userProperty=tier'],
    check: read((r) => expect(r).toMatchObject({ user_property: 'gp:tier', description: 'plan tier' })),
  },
  {
    operation: 'taxonomy.user-properties.update',
    args: ['--param', 'userProperty=tier', '--body', '-'],
    stdin: JSON.stringify({ description: 'billing tier' }),
    check: printsSuccess,
  },
  { operation: 'taxonomy.user-properties.delete', args: ['--param', 'userProperty=tier'], check: printsSuccess },
  { operation: 'taxonomy.user-properties.restore', args: ['--param', 'userProperty=tier'], check: printsSuccess },

  {
    operation: 'taxonomy.group-properties.create',
    ...body({ group_type: 'company', group_property: 'seats', type: 'string' }),
    check: printsSuccess,
  },
  {
    operation: 'taxonomy.group-properties.list',
    args: ['--param', 'groupType=company'],
    check: read((r) =>
      expect(r).toContainEqual(expect.objectContaining({ group_type: 'company', group_property: 'grp:seats' })),
    ),
  },
  {
    operation: 'taxonomy.group-properties.get',
    args: ['--param', 'groupProperty=seats', '--param', 'groupType=company'],
    check: read((r) => expect(r).toMatchObject({ group_type: 'company', group_property: 'grp:seats', type: 'string' })),
  },
  {
    operation: 'taxonomy.group-properties.update',
    args: ['--param', 'groupProperty=seats', '--body', '-'],
    stdin: JSON.stringify({ group_type: 'company', description: 'paid seats' }),
    check: printsSuccess,
  },
];
