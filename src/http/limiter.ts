/**
 * The one limit layer every request goes through (clients and the session replay pipeline alike):
 *
 * - a concurrency cap per family and one per API host that all families but `storage` share (a request takes a
 *   slot of both; p-queue each). A slot is held for the whole life of a request, including reading its body.
 * - cost budgets per family (budget.ts): over a sliding window, or held while in flight (`concurrent`); a request
 *   waits for budget, and one whose cost exceeds a whole budget is refused before sending (BudgetExceededError).
 *   `check` refuses it before anything else, so that no wait is announced for a request that can never go.
 * - a family-wide pause (`pause`): no request of the family is sent before the wait ends; the transport pauses a
 *   family for a rate 429's Retry-After (src/util/limit-messages.ts tells the kinds of 429 apart).
 * - with `adaptive` settings, each family's cap is an adaptive window (adaptive-limit.ts) within its maximum: the
 *   caller reports each request's outcome (`Release.report`) and the window grows or is cut accordingly.
 *
 * Budgets are spent only once both slots are held and no pause is running, so what is counted is what is sent.
 */
import PQueue from 'p-queue';
import { AdaptiveLimit, type SentTicket } from './adaptive-limit.js';
import { ConcurrentBudget, SlidingBudget } from './budget.js';
import { adaptiveSettings, type AdaptiveOptions, type ApiFamily, type FamilyBudget } from './options.js';
import { InternalError } from '../errors.js';
import { systemClock, type Clock } from '../util/clock.js';

/** What became of a request sent in a slot: answered (any status but 429/503) or overloaded (429/503). */
export type SlotOutcome = { answered: true; latencyMs: number } | { overloaded: true };

/**
 * Gives the slots back (idempotent); `report` tells the family's window how the request went (once) and returns
 * whether the request went with no window to cut: a fixed cap, or the window at its smallest.
 */
export interface Release {
  (): void;
  report(outcome: SlotOutcome | undefined): boolean;
}

export interface LimitConfig {
  concurrency: Readonly<Record<ApiFamily, number>>;
  /** Cap per API host shared by every family but `storage` (default: none). */
  hostConcurrency?: number;
  budgets?: Readonly<Partial<Record<ApiFamily, readonly FamilyBudget[]>>>;
  /** Adaptive windows (`concurrency` gives their maximums); absent or `enabled: false`: fixed caps. */
  adaptive?: AdaptiveOptions;
  /** The clock pauses, budgets and growth holds are read and waited on (default: the real one). */
  clock?: Clock;
}

export interface AcquireOptions {
  /** Cost of the request in its family's budgets (default 1). */
  cost?: number;
  /** Host (and port) the request goes to; the host cap applies when given. */
  host?: string;
  signal?: AbortSignal | undefined;
}

/** Families whose requests do not go to the API host (no host slot). */
const OFF_HOST: ReadonlySet<ApiFamily> = new Set(['storage']);

function slot(q: PQueue, signal: AbortSignal | undefined): Promise<() => void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<() => void>((resolve, reject) => {
    let free!: () => void;
    const held = new Promise<void>((r) => (free = r));
    let released = false;
    const release = (): void => {
      if (!released) {
        released = true;
        free();
      }
    };
    q.add(
      async () => {
        resolve(release);
        await held;
      },
      signal ? { signal } : {},
    ).catch((err: unknown) => reject(signal?.aborted ? signal.reason : err));
  });
}

/** What `heldBy` names when a family's pause after a 429 holds a request back. */
export const PAUSED_BY_429 = 'pause after a 429';

/** Round trips a window's growth is held after a concurrency 429 cut it (at most the 429's Retry-After). */
const CONCURRENCY_HOLD_ROUND_TRIPS = 5;

export class FamilyLimiter {
  readonly #queues = new Map<ApiFamily, PQueue>();
  readonly #windows = new Map<ApiFamily, AdaptiveLimit>();
  readonly #hosts = new Map<string, PQueue>();
  readonly #budgets = new Map<ApiFamily, SlidingBudget[]>();
  readonly #concurrent = new Map<ApiFamily, ConcurrentBudget[]>();
  readonly #pausedUntil = new Map<ApiFamily, number>();
  readonly #growthHeldUntil = new Map<ApiFamily, number>();
  readonly #config: LimitConfig;
  /** Requests holding every slot they need (sent, or being read), all families together. */
  #holding = 0;
  readonly #clock: Clock;
  readonly #now: () => number;

  constructor(config: LimitConfig | Readonly<Record<ApiFamily, number>>) {
    this.#config =
      'concurrency' in config && typeof config.concurrency === 'object'
        ? (config as LimitConfig)
        : { concurrency: config as Readonly<Record<ApiFamily, number>> };
    this.#clock = this.#config.clock ?? systemClock;
    this.#now = () => this.#clock.now();
  }

  #queue(family: ApiFamily): PQueue {
    let q = this.#queues.get(family);
    if (!q) {
      const c = this.#config.concurrency[family];
      if (!c) throw new InternalError(`unknown API family ${JSON.stringify(family)}`);
      const adaptive = this.#config.adaptive;
      if (adaptive?.enabled) {
        const queue = new PQueue({ concurrency: 1 });
        const window = new AdaptiveLimit(adaptiveSettings(adaptive, family, c), (limit) => (queue.concurrency = limit));
        queue.concurrency = window.limit;
        this.#windows.set(family, window);
        q = queue;
      } else {
        q = new PQueue({ concurrency: c });
      }
      this.#queues.set(family, q);
    }
    return q;
  }

  #hostQueue(family: ApiFamily, host: string | undefined): PQueue | undefined {
    const cap = this.#config.hostConcurrency;
    if (!cap || host === undefined || OFF_HOST.has(family)) return undefined;
    let q = this.#hosts.get(host);
    if (!q) {
      q = new PQueue({ concurrency: cap });
      this.#hosts.set(host, q);
    }
    return q;
  }

  #familyBudgets(family: ApiFamily): SlidingBudget[] {
    let b = this.#budgets.get(family);
    if (!b) {
      const specs = this.#config.budgets?.[family] ?? [];
      b = specs.filter((s) => s.kind !== 'concurrent').map((spec) => new SlidingBudget(spec, this.#now));
      this.#budgets.set(family, b);
      this.#concurrent.set(
        family,
        specs.filter((s) => s.kind === 'concurrent').map((spec) => new ConcurrentBudget(spec)),
      );
    }
    return b;
  }

  #concurrentBudgets(family: ApiFamily): ConcurrentBudget[] {
    this.#familyBudgets(family);
    return this.#concurrent.get(family)!;
  }

  /** Throws BudgetExceededError when a request of `family` costing `cost` can never fit one of its budgets. */
  check(family: ApiFamily, cost = 1): void {
    for (const b of this.#familyBudgets(family)) b.check(cost);
    for (const b of this.#concurrentBudgets(family)) b.check(cost);
  }

  /** Requests of a family allowed in flight now: its adaptive window, or its fixed cap. */
  limit(family: ApiFamily): number {
    return this.#queue(family).concurrency;
  }

  /** The most a family's window may grow to (its configured cap). */
  maximum(family: ApiFamily): number {
    return this.#config.concurrency[family];
  }

  /**
   * Resolves once no request of `family` waits for a slot. A new request may then still wait (the slots all taken), but
   * behind no other: enough to keep the window full, which is how it learns whether it may grow.
   */
  async room(family: ApiFamily, signal?: AbortSignal): Promise<void> {
    const q = this.#queue(family);
    const free = (): boolean => q.size === 0;
    while (!free()) {
      if (signal?.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          q.off('next', done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        q.on('next', done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Requests of a family holding a slot now. */
  active(family: ApiFamily): number {
    return this.#queues.get(family)?.pending ?? 0;
  }

  /** Requests of a family waiting for a slot. */
  waiting(family: ApiFamily): number {
    return this.#queues.get(family)?.size ?? 0;
  }

  /** Requests holding every slot they need now (their family's and their host's), all families together. */
  holding(): number {
    return this.#holding;
  }

  /** Requests holding a slot of a host now. */
  activeOnHost(host: string): number {
    return this.#hosts.get(host)?.pending ?? 0;
  }

  /** Cost spent in each budget of a family (held now, for a concurrent one), by budget name. */
  used(family: ApiFamily): Record<string, number> {
    const all = [...this.#familyBudgets(family), ...this.#concurrentBudgets(family)];
    return Object.fromEntries(all.map((b) => [b.spec.name, b.used()]));
  }

  /** Holds back every request of `family` for `ms` (a 429 with Retry-After); a longer running pause is kept. */
  pause(family: ApiFamily, ms: number): void {
    const until = this.#now() + Math.max(0, ms);
    if (until > (this.#pausedUntil.get(family) ?? 0)) this.#pausedUntil.set(family, until);
  }

  /**
   * After a concurrency 429 (the window just cut): keeps the family's window from growing for the server's
   * `retryAfterMs`, at most `CONCURRENCY_HOLD_ROUND_TRIPS` of its round trips. Probing a larger window at once would
   * ask for another 429 before the cut took effect (the requests sent under the old window come back within a round
   * trip or two); holding for the whole Retry-After (ten round trips at the sandbox's 1 s and 100 ms) left three shards
   * of a project below its limit long after the cut (docs/PERFORMANCE.md, "Scale, API").
   */
  holdGrowthAfterCut(family: ApiFamily, retryAfterMs: number): void {
    const roundTrip = this.#windows.get(family)?.roundTripMs;
    this.holdGrowth(
      family,
      roundTrip === undefined ? retryAfterMs : Math.min(retryAfterMs, CONCURRENCY_HOLD_ROUND_TRIPS * roundTrip),
    );
  }

  /** Keeps the family's window from growing for `ms`. Requests still go. */
  holdGrowth(family: ApiFamily, ms: number): void {
    const until = this.#now() + Math.max(0, ms);
    if (until > (this.#growthHeldUntil.get(family) ?? 0)) this.#growthHeldUntil.set(family, until);
  }

  /** ms left of the family's pause (0: not paused). */
  pausedFor(family: ApiFamily): number {
    return Math.max(0, (this.#pausedUntil.get(family) ?? 0) - this.#now());
  }

  /**
   * What would hold a request of `family` costing `cost` back now, and for how long (ms): the family's pause after a
   * 429, else its longest budget wait (by the budget's name); undefined when it may go at once (slots aside).
   */
  heldBy(family: ApiFamily, cost = 1): { ms: number; by: string } | undefined {
    const paused = this.pausedFor(family);
    if (paused > 0) return { ms: paused, by: PAUSED_BY_429 };
    let held: { ms: number; by: string } | undefined;
    for (const b of this.#familyBudgets(family)) {
      const ms = b.waitFor(cost);
      if (ms > 0 && (held === undefined || ms > held.ms)) held = { ms, by: b.spec.name };
    }
    return held;
  }

  /** ms before a request of `family` costing `cost` may go: the pause, then the budgets. */
  #wait(family: ApiFamily, cost: number): number {
    const paused = this.pausedFor(family);
    if (paused > 0) return paused;
    return Math.max(0, ...this.#familyBudgets(family).map((b) => b.waitFor(cost)));
  }

  /**
   * Waits for the family's pause, its budgets and slots of the family and the host, spends the request's cost (held
   * until release in a concurrent budget) and resolves with the function that gives the slots back (idempotent). A
   * cost larger than a whole budget rejects at once with BudgetExceededError. Aborting the signal while waiting
   * rejects with its reason.
   */
  async acquire(family: ApiFamily, signalOrOptions?: AbortSignal | AcquireOptions): Promise<Release> {
    const opts: AcquireOptions =
      signalOrOptions instanceof AbortSignal ? { signal: signalOrOptions } : (signalOrOptions ?? {});
    const { signal, host } = opts;
    const cost = opts.cost ?? 1;
    this.check(family, cost);
    const budgets = this.#familyBudgets(family);
    const concurrent = this.#concurrentBudgets(family);
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      if (await this.#waitedForBudgets(family, cost, signal)) continue;
      const free = this.#counted(await this.#slots(family, host, signal));
      // A pause may have started, or a budget been spent, while this request queued for its slots.
      if (this.#wait(family, cost) > 0 || !concurrent.every((b) => b.fits(cost))) {
        free();
        continue;
      }
      for (const b of budgets) b.spend(cost);
      const held = concurrent.map((b) => b.take(cost));
      const giveBack = (): void => {
        for (const give of held) give();
        free();
      };
      return this.#release(family, giveBack, () => {
        for (const b of budgets) b.refund(cost);
      });
    }
  }

  /** Waits for the pause and the window budgets, else for a concurrent budget to have room; true when it waited. */
  async #waitedForBudgets(family: ApiFamily, cost: number, signal: AbortSignal | undefined): Promise<boolean> {
    const wait = this.#wait(family, cost);
    if (wait > 0) {
      await this.#clock.sleep(wait, signal);
      return true;
    }
    const full = this.#concurrentBudgets(family).find((b) => !b.fits(cost));
    if (full === undefined) return false;
    await full.released(signal);
    return true;
  }

  /** `free`, with the request counted in `holding()` until it is first called. */
  #counted(free: () => void): () => void {
    let freed = false;
    this.#holding++;
    return () => {
      if (!freed) this.#holding--;
      freed = true;
      free();
    };
  }

  /** A slot of the family and, for an API family, of the host; resolves with the function that frees both. */
  async #slots(family: ApiFamily, host: string | undefined, signal: AbortSignal | undefined): Promise<() => void> {
    const releaseFamily = await slot(this.#queue(family), signal);
    const hq = this.#hostQueue(family, host);
    if (!hq) return releaseFamily;
    try {
      const releaseHost = await slot(hq, signal);
      return () => {
        releaseHost();
        releaseFamily();
      };
    } catch (err) {
      releaseFamily();
      throw err;
    }
  }

  /** The release of a granted slot, reporting to the family's window (if any) what the request sent in it met. */
  #release(family: ApiFamily, free: () => void, refund: () => void): Release {
    const window = this.#windows.get(family);
    const ticket: SentTicket | undefined = window?.sent(this.active(family));
    let reported = false;
    let refunded = false;
    const held = (): boolean => (this.#growthHeldUntil.get(family) ?? 0) > this.#now();
    return Object.assign(free, {
      report(outcome: SlotOutcome | undefined): boolean {
        // Overloaded (429/503): the server did not serve the request, so its cost is not spent in the budgets.
        if (outcome && !refunded && 'overloaded' in outcome) {
          refunded = true;
          refund();
        }
        if (!window || !ticket) return true;
        if (reported || !outcome) return ticket.smallest;
        reported = true;
        if ('overloaded' in outcome) window.overloaded(ticket);
        else window.answered(held() ? { ...ticket, full: false } : ticket, outcome.latencyMs);
        return ticket.smallest;
      },
    });
  }

  /** Runs `fn` inside a slot of `family`. */
  async run<T>(family: ApiFamily, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(family, signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
