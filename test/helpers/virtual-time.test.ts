/**
 * The virtual-time driver (virtual-time.ts) moves the clock only while every request on its way is sleeping at the
 * sandbox. A request that takes its slot (and starts its deadline) in the last of the turns the driver waits out must
 * stop it: moving the clock then fired that request's 5-minute deadline before it reached the sandbox
 * (start-window's archive, under load: a retry, then a sandbox sleeping for a request no one waited for, and a hang).
 */
import { describe, expect, it } from 'vitest';
import type { Transport } from '../../src/http/index.js';
import { turn } from './manual-clock.js';
import { VirtualTime } from './virtual-time.js';

const LATENCY_MS = 100;
const DEADLINE_MS = 300_000;

/** Two requests one after the other, the second taking its slot `gap` turns after the first was answered. */
async function twoRequests(gap: number): Promise<{ deadlineFired: boolean; elapsed: number }> {
  const time = new VirtualTime();
  let holding = 0;
  time.watch({ holding: () => holding } as unknown as Transport);
  const start = time.client.now();
  let deadlineFired = false;
  const request = async (turnsOnTheWire: number): Promise<void> => {
    holding++;
    const clear = time.client.after(DEADLINE_MS, () => {
      deadlineFired = true;
    });
    for (let i = 0; i < turnsOnTheWire; i++) await turn();
    await time.sandbox.sleep(LATENCY_MS);
    clear();
    holding--;
  };
  await time.drive(
    (async () => {
      await request(2);
      for (let i = 0; i < gap; i++) await turn();
      await request(10);
    })(),
  );
  return { deadlineFired, elapsed: time.client.now() - start };
}

describe('virtual time', () => {
  it('never moves the clock while a request is on its way, however the turns fall', async () => {
    const outcomes = [];
    for (let gap = 0; gap < 8; gap++) outcomes.push(await twoRequests(gap));
    expect(outcomes).toEqual(Array(8).fill({ deadlineFired: false, elapsed: 2 * LATENCY_MS }));
  });
});
