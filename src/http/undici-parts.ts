/**
 * The two parts of undici the transport uses — the keep-alive `Agent` and the `request` API — loaded from their own
 * modules instead of undici's index. The index loads all of undici (fetch, WebSocket, EventSource, caches, mocks):
 * 5.0 MB of V8 heap, against 1.5 MB for these two. That matters for a CLI process: with the index its heap is ~10 MB,
 * above V8's 8 MB threshold, and Node 20's V8 then runs incremental marking nearly all the time while an export runs
 * (docs/PERFORMANCE.md, "Where the time and the memory go"); with these parts it stays under it.
 *
 * undici has no `exports` map, so these paths are importable, but they are undici's internal layout: package.json
 * therefore pins undici to one exact version (no range a user's install could move), and
 * test/http/undici-parts.test.ts checks that they are the same classes and function the index exports and that the
 * installed version is the pinned one, so that an upgrade that moves them fails the tests rather than the users.
 * Measured gain that pays for this: the 1 GB version 3 export 410–451 → 459–481 MB/s, peak RSS 130–145 → 124–141 MB
 * (docs/PERFORMANCE.md).
 */

import { createRequire } from 'node:module';
import type { Agent as AgentClass, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

/** undici's `Agent` (lib/dispatcher/agent.js). */
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof AgentClass;

/** `Dispatcher.prototype.request` as undici's index installs it (lib/api/api-request.js). */
const apiRequest = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  opts: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** What `request(url, { dispatcher, ... })` of undici's index does: the same options, on the given dispatcher. */
export function request(
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = opts;
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: url.origin,
    path: url.search ? `${url.pathname}${url.search}` : url.pathname,
  });
}
