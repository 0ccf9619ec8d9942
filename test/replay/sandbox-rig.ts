/**
 * Client tests against the real sandbox with fault switches: one sandbox and a transport aimed at it per test
 * (`startRig`), stopped by `stopRig` in `afterEach`.
 */
import { Transport, type TransportOptions } from '../../src/http/index.js';
import { startSandbox, type Faults, type Sandbox } from '../../src/sandbox/index.js';

export interface Rig {
  sb: Sandbox;
  transport: Transport;
}

let current: Rig | undefined;

export async function startRig(faults: Partial<Faults>, o: TransportOptions = {}): Promise<Rig> {
  const sb = await startSandbox({ faults });
  current = { sb, transport: new Transport({ endpoint: sb.url, credentials: sb.credentials, ...o }) };
  return current;
}

export async function stopRig(): Promise<void> {
  const rig = current;
  current = undefined;
  await rig?.transport.close();
  await rig?.sb.close();
}

/** Reads an async iterable to its end; resolves with the error that ended it (undefined when none did). */
export async function errorOf(it: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of it) {
      // only the end matters
    }
  } catch (err) {
    return err;
  }
  return undefined;
}
