/** The sandbox: a loopback HTTP server that behaves like the platform's Session Replay API. */
export { startSandbox, type Sandbox } from './server.js';
export { SANDBOX_DEFAULTS, SandboxConfigError, type ExtraReplay, type SandboxOptions } from './options.js';
export {
  DEFAULT_FAULTS,
  FaultsError,
  type CorruptKind,
  type Faults,
  type FileEncoding,
  type ListingScope,
  type ServerErrorScope,
} from './faults.js';
export type { SandboxStats } from './stats.js';
export type { ApiArrival } from './api-limits.js';
export type { SandboxReplay } from './describe.js';
export type { HeldAttribution } from './families/index.js';
export type { ReplayRecordJson } from './replicas.js';
export { REPLICA_SPACING_MS, replicaTimeShape } from './replicas.js';
export { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './rate-limits.js';
