// Ruling R14 and R36: a request that fails after claiming its Idempotency-Key gives the key
// back. When even that release fails (the database is unreachable: the very failure that ended
// the request, often), the claim would stay in progress for its whole lease, and a client that
// follows the contract's advice (503, retry with the same key) would get 409
// idempotency_in_progress for a minute although its request is long over (R14, R36). So failed
// releases are kept here and retried in the background, with a growing pause, until they
// succeed or their lease passes (after which the key can be taken over anyway, R14).
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.ts';
import { describeCause } from '../shared/describe-cause.ts';

export interface ReleasableClaim {
  readonly customerId: string;
  readonly key: string;
  readonly leaseExpiresAt: string;
}

interface ReleaseRetryOptions<C extends ReleasableClaim = ReleasableClaim> {
  /** Releases one claim; the number of rows it removed, when known. */
  release(claim: C): Promise<number | void>;
  clock: Clock;
  log?: Pick<Logger, 'warn' | 'info'>;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export class ReleaseRetry<C extends ReleasableClaim = ReleasableClaim> {
  readonly #options: ReleaseRetryOptions<C>;
  readonly #pending = new Map<string, { claim: C; settlesAt: number | undefined }>();
  #timer: NodeJS.Timeout | undefined;
  #delayMs: number;
  #stopped = false;
  /** Whether the last pass had failures: the log says when that starts and when it ends. */
  #failing = false;

  constructor(options: ReleaseRetryOptions<C>) {
    this.#options = options;
    this.#delayMs = options.firstDelayMs ?? 200;
  }

  /** Claims still waiting for their release. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Keeps a claim whose release failed, and schedules an attempt. `settleMs`: the claim's own
   * write may still be under way (its answer was lost, not its statement), so a release that
   * finds no row is not the end of it until that long has passed (R33's bound on a statement).
   */
  add(claim: C, settleMs?: number): void {
    if (this.#stopped) return;
    // Every field of the claim (its mode too, R53) tells it apart.
    this.#pending.set(Object.values(claim).join('\u0000'), { claim, settlesAt: settleMs === undefined ? undefined : performance.now() + settleMs });
    this.#schedule();
  }

  /** One pass over the pending claims (the timer's work; tests call it directly). */
  async retryNow(): Promise<void> {
    const now = this.#options.clock.now().getTime();
    let failed = 0;
    for (const [id, { claim, settlesAt }] of this.#pending) {
      if (new Date(claim.leaseExpiresAt).getTime() <= now) {
        this.#pending.delete(id); // the lease has passed: the key can be taken over (R14)
        continue;
      }
      try {
        const removed = await this.#options.release(claim);
        // Nothing to remove yet, while the claim's own write may still commit: try again.
        if (removed === 0 && settlesAt !== undefined && performance.now() < settlesAt) continue;
        this.#pending.delete(id);
      } catch (cause) {
        failed += 1;
        if (failed === 1 && !this.#failing) {
          this.#options.log?.warn({ cause: describeCause(cause) }, 'idempotency claim releases are failing; retrying in the background');
        }
      }
    }
    if (this.#failing && failed === 0) this.#options.log?.info('idempotency claim releases succeed again');
    this.#failing = failed > 0;
    this.#delayMs = failed > 0 ? Math.min(this.#delayMs * 2, this.#options.maxDelayMs ?? 2_000) : (this.#options.firstDelayMs ?? 200);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#stopped || this.#pending.size === 0) return;
    this.#timer = setTimeout(() => {
      void this.retryNow().finally(() => {
        this.#timer = undefined;
        this.#schedule();
      });
    }, this.#delayMs);
    this.#timer.unref();
  }
}
