import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { secretForms } from '../../src/http/redact.js';
import { cleanEnv, runCli } from './cli-helpers.js';

/**
 * A hostile API on loopback: every request is answered 400 with a body that quotes the credentials it was sent, in
 * every form the tool itself could write them (raw, JSON-escaped once and twice, URL-encoded, base64).
 */
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const decoded = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8');
    const secret = decoded.slice(decoded.indexOf(':') + 1);
    const echoed = secretForms(secret).join(' | ');
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `bad request for ${secret}: ${echoed}`, nested: JSON.stringify({ secret }) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function leaks(output: string, secret: string): string[] {
  return secretForms(secret).filter((form) => output.includes(form));
}

describe('secrets in messages', () => {
  test('no form of the secret reaches stderr or stdout, in text or JSON logs, whatever its characters', async () => {
    for (const secret of ['p"a\\ss/w+rd%x', 'sëcret\u2028<>&=?']) {
      const env = cleanEnv({ PLATFORM_API_KEY: 'key-1', PLATFORM_SECRET_KEY: secret, PLATFORM_ENDPOINT: url });
      for (const args of [['list'], ['--log-format', 'json', 'list']]) {
        const res = await runCli(args, env);
        expect(res.code, res.stderr).toBe(1);
        expect(res.stderr).toMatch(/400/);
        expect(res.stderr).toContain('[REDACTED]');
        expect(leaks(res.stderr + res.stdout, secret), res.stderr).toEqual([]);
        if (args.includes('json'))
          for (const line of res.stderr.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
      }
    }
  });

  test('a secret of eight characters is redacted; a shorter one mangles no message', async () => {
    const env = cleanEnv({ PLATFORM_API_KEY: 'key-1', PLATFORM_SECRET_KEY: 'Q7zQ7zQ7', PLATFORM_ENDPOINT: url });
    const res = await runCli(['list'], env);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).not.toContain('Q7zQ7zQ7');
    // A one-letter key turned every "error" into "[REDACTED]rror" (issue 28): no credential is that short.
    const short = await runCli(
      ['list'],
      cleanEnv({ PLATFORM_API_KEY: 'key-1', PLATFORM_SECRET_KEY: 'e', PLATFORM_ENDPOINT: url }),
    );
    expect(short.code, short.stderr).toBe(1);
    expect(short.stderr).not.toContain('[REDACTED]rror');
  });
});
