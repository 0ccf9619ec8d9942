/**
 * A sandbox and one transport per test for the family tests (test/sandbox/*-family.test.ts): started on demand, both
 * closed after each test.
 */
import { afterEach } from 'vitest';
import { Transport, type TransportOptions } from '../../src/http/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export interface FamilyHarness {
  /** Starts a sandbox and a transport to it (no retries unless `transport` says so); `secretKey` replaces the right one. */
  start(options?: SandboxOptions, transport?: TransportOptions & { secretKey?: string }): Promise<{ sandbox: Sandbox; transport: Transport }>;
  /** The running sandbox (after `start`). */
  sandbox(): Sandbox;
}

/** Registers the cleanup; call at the top of a test file. */
export function familyHarness(): FamilyHarness {
  let sb: Sandbox | undefined;
  let transport: Transport | undefined;
  afterEach(async () => {
    await transport?.close();
    await sb?.close();
    sb = transport = undefined;
  });
  return {
    async start(options = {}, t = {}) {
      const { secretKey, ...rest } = t;
      sb = await startSandbox(options);
      transport = new Transport({ endpoint: sb.url, credentials: { apiKey: sb.credentials.apiKey, secretKey: secretKey ?? sb.credentials.secretKey }, retry: { retries: 0 }, ...rest });
      return { sandbox: sb, transport };
    },
    sandbox: () => sb ?? (() => { throw new Error('no sandbox started'); })(),
  };
}

/** The `Authorization` header of the sandbox's project credentials (for raw requests). */
export function basicAuth(sandbox: Sandbox): string {
  return `Basic ${Buffer.from(`${sandbox.credentials.apiKey}:${sandbox.credentials.secretKey}`).toString('base64')}`;
}
