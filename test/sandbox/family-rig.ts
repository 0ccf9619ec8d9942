/**
 * Setup shared by the sandbox family tests: a real sandbox, transports aimed at it (no retries, so a refusal shows at
 * once), and raw requests for what a typed client would refuse to send.
 */
import { Transport } from '../../src/clients/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import type { Clock } from '../../src/util/clock.js';

export interface RawAnswer {
  status: number;
  /** The parsed JSON, or the text when the answer is not JSON. */
  body: unknown;
}

type Credentials = { apiKey?: string; secretKey?: string; managementKey?: string };

export class FamilyRig {
  readonly #transports: Transport[] = [];
  private constructor(
    readonly sandbox: Sandbox,
    readonly clock: Clock | undefined,
  ) {}

  /** `options.clock`: the sandbox's, and its transports' too. */
  static async start(options: SandboxOptions = {}): Promise<FamilyRig> {
    return new FamilyRig(await startSandbox(options), options.clock);
  }

  /** A transport with the sandbox's credentials, or with the ones given (on the rig's clock, when it has one). */
  transport(credentials: Credentials = this.sandbox.credentials): Transport {
    const clock = this.clock !== undefined ? { clock: this.clock } : {};
    const t = new Transport({ endpoint: this.sandbox.url, credentials, retry: { retries: 0 }, ...clock });
    this.#transports.push(t);
    return t;
  }

  /** The `Authorization` header of the sandbox's project keys (HTTP Basic), for raw requests. */
  basicAuth(): string {
    const { apiKey, secretKey } = this.sandbox.credentials;
    return `Basic ${Buffer.from(`${apiKey}:${secretKey}`).toString('base64')}`;
  }

  /** POSTs `params` form-encoded (`form`) or in the query (`query`), without credentials beyond an `api_key` in them. */
  async post(path: string, params: Record<string, string>, where: 'form' | 'query' = 'form'): Promise<RawAnswer> {
    const encoded = new URLSearchParams(params).toString();
    if (where === 'query') return this.send('POST', `${path}?${encoded}`);
    return this.send('POST', path, { 'content-type': 'application/x-www-form-urlencoded' }, encoded);
  }

  /** A JSON request with the management key as a Bearer token, or the `authorization` given. */
  async management(
    method: string,
    path: string,
    json?: unknown,
    authorization = `Bearer ${this.sandbox.credentials.managementKey}`,
  ): Promise<RawAnswer> {
    const headers = {
      authorization,
      accept: 'application/json',
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
    };
    return this.send(method, path, headers, json !== undefined ? JSON.stringify(json) : undefined);
  }

  /** One request; the answer parsed when it is JSON, else its text. */
  async send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
    const res = await fetch(`${this.sandbox.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    return {
      status: res.status,
      body: res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text,
    };
  }

  async close(): Promise<void> {
    for (const t of this.#transports.splice(0)) await t.close();
    await this.sandbox.close();
  }
}
