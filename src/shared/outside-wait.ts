// R52: a request that waits long on a service outside the instance (the generator: Gemini
// answers in seconds) uses neither the event loop nor the database meanwhile, so it lends its
// admission place to the queue for that wait, and takes one again when the answer is back. The
// edge gives each admitted request its place through this scope; the step that calls out wraps
// the call in waitingOutside(). Without a place (admission control off, tests of a use case on
// its own) the call simply runs.
//
// Only a wait longer than LEND_AFTER_MS lends the place: a generator that answers at once (the
// offline one) does not hand its place around for nothing, so the concurrency limit of
// CPU-bound work means what it says.
import { AsyncLocalStorage } from 'node:async_hooks';

/** What a request's admission place offers the code it runs. */
export interface Place {
  /** Lends the place; the returned function takes it back. */
  stepOut(): () => void;
}

const LEND_AFTER_MS = 20;

const scope = new AsyncLocalStorage<Place>();

/** Runs `fn` (an admitted request) with `place` as its admission place. */
export function withPlace<T>(place: Place, fn: () => T): T {
  return scope.run(place, fn);
}

/** Awaits `call` (a call to an outside service); after LEND_AFTER_MS its place is lent until it settles. */
export async function waitingOutside<T>(call: () => Promise<T>): Promise<T> {
  const place = scope.getStore();
  if (place === undefined) return call();
  let back: (() => void) | undefined;
  const timer = setTimeout(() => (back = place.stepOut()), LEND_AFTER_MS);
  try {
    return await call();
  } finally {
    clearTimeout(timer);
    back?.();
  }
}
