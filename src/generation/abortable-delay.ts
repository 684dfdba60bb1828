// A timer that an AbortSignal cuts short: the generators' delays and retry back-off must never
// hold a request past its deadline or past the caller giving up.
import { setTimeout as sleep } from 'node:timers/promises';
import { GenerationError } from './report-generator.ts';

/** Waits `ms`; rejects with GenerationError('unavailable', 'aborted') when `signal` aborts. */
export async function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw new GenerationError('unavailable', 'aborted');
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    if (signal?.aborted) throw new GenerationError('unavailable', 'aborted');
    throw error;
  }
}
