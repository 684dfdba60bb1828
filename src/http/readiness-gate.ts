// R51: /readyz asks the database at most once a second however many callers ask it, and never
// waits longer than 2 s. Callers share one probe (single flight): the one in flight, or else
// the next one, which starts a second after the previous one started. So every answer is as
// fresh as the rate allows (a probe that began before the caller asked, or just after), a
// flood of /readyz costs the database one `select 1` a second, and the longest wait is the
// rest of that second plus the probe's own bound.
import { setTimeout as sleep } from 'node:timers/promises';
import { answersWithin } from '../db/bounded-pool.ts';

/** At most one probe starts per this many ms. */
const READINESS_INTERVAL_MS = 1_000;
/** One probe's bound: with the wait for its turn, under 2 s. */
const READINESS_PROBE_MS = 900;

export function readinessGate(
  probe: () => Promise<boolean>,
  options: { intervalMs?: number; probeMs?: number; now?: () => number; sleep?: (ms: number) => Promise<unknown> } = {},
): () => Promise<boolean> {
  const intervalMs = options.intervalMs ?? READINESS_INTERVAL_MS;
  const probeMs = options.probeMs ?? READINESS_PROBE_MS;
  const now = options.now ?? (() => performance.now());
  const wait = options.sleep ?? sleep;
  let lastStart = -Infinity;
  /** Ms until the next probe may start. */
  const untilNext = () => lastStart + intervalMs - now();
  let pending: Promise<boolean> | undefined;
  return () => {
    pending ??= (async () => {
      try {
        // Until a whole interval has passed by `now`: Node's timers may fire up to a millisecond
        // early against performance.now() (libuv's loop clock is in whole ms), and a probe
        // 999 ms after the last one would break "at most once a second".
        for (let left = untilNext(); left > 0; left = untilNext()) await wait(Math.ceil(left));
        lastStart = now();
        return await answersWithin(probe, probeMs);
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };
}

/**
 * R35: not ready from SIGTERM on, also for a caller whose probe was under way when the signal
 * came (the probe may take most of its bound; its answer is older than the drain).
 */
export function readyUnlessDraining(draining: () => boolean, probe: () => Promise<boolean>): () => Promise<boolean> {
  return async () => !draining() && (await probe()) && !draining();
}
