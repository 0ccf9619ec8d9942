/** Options every client method takes. */
import type { CallSpec } from '../http/call-spec.js';

export { callSpec } from '../http/call-spec.js';

/**
 * `signal` aborts the call wherever it is (queued, in flight, waiting to retry); `extraQuery`/`extraFields` are
 * added unchecked to each request the call makes, and `onResponse` sees each response (the `api` command's).
 */
export interface CallOptions extends CallSpec {}
