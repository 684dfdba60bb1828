// When a request reached the service: the edge marks the ones admission control may queue
// (R52), so that their latency (ers_http_request_duration_seconds, the access log's ms) counts
// the wait in the queue too, not only the time after admission. A request that is not queued
// starts when the application sees it, a moment later.
import type { IncomingMessage } from 'node:http';

const arrivals = new WeakMap<IncomingMessage, number>();

export function markArrival(req: IncomingMessage): void {
  arrivals.set(req, performance.now());
}

/** The `performance.now()` of the request's arrival at the edge, when it was marked. */
export function arrivalOf(req: IncomingMessage): number | undefined {
  return arrivals.get(req);
}
