// The production ImageFetcher (spec 4.1 "Remote image rules", R22, R23).
// Per hop: static URL checks, one resolution, every answer checked as bytes, a
// connection to the checked address only. One deadline per image covers DNS,
// connect, every redirect and the body.
import { AddressPolicy } from './address-policy.ts';
import { BudgetLease, ByteBudget } from './byte-budget.ts';
import { ImageFetchError, ImageRefusal, rejected, unavailable } from './image-fetch-error.ts';
import { keepAsFetched, type FetchedImage, type FetchOptions, type ImageFetcher } from './image-fetcher.ts';
import { toImageTarget } from './image-url.ts';
import type { ImageTarget } from './image-url.ts';
import { ABORTED, httpGet } from './http-get.ts';
import { checkedAddress, defaultResolver } from './checked-address.ts';
import type { HostResolver } from './checked-address.ts';

export const DEFAULT_USER_AGENT = 'evidence-report-service/0.1 (remote evidence image fetcher)';

export interface HttpImageFetcherOptions {
  /** IMAGE_MAX_BYTES (R22 default 10 MiB). */
  readonly maxBytes: number;
  /** IMAGE_FETCH_TIMEOUT_MS: per image, DNS and connect to last byte (R22 default 5 s). */
  readonly timeoutMs: number;
  /** IMAGE_MAX_REDIRECTS (R22 default 3). */
  readonly maxRedirects: number;
  /** IMAGE_FETCH_CONCURRENCY: images of one call fetched at once (default 4). */
  readonly concurrency?: number;
  /** IMAGE_BYTES_IN_FLIGHT_MAX, used to build a budget when `budget` is not given. */
  readonly maxBytesInFlight?: number;
  /** A budget shared with other fetchers; one per process in production. */
  readonly budget?: ByteBudget;
  /** REMOTE_IMAGE_ALLOW_CIDRS: exact ranges exempt from the block (local tests only). */
  readonly allowCidrs?: readonly string[];
  /** IMAGE_ALLOWED_PORTS: ports besides 80 and 443 that image URLs may name. */
  readonly allowedPorts?: readonly number[];
  readonly resolver?: HostResolver;
  readonly userAgent?: string;
  /** Trust roots replacing the default ones; for tests with a local CA only. */
  readonly tlsCa?: string | Buffer | (string | Buffer)[];
}

const positiveInt = (value: number, name: string, min = 1): number => {
  if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`HttpImageFetcher: invalid ${name}`);
  return value;
};

export class HttpImageFetcher implements ImageFetcher {
  readonly #maxBytes: number;
  readonly #timeoutMs: number;
  readonly #maxRedirects: number;
  readonly #concurrency: number;
  readonly #budget: ByteBudget;
  readonly #policy: AddressPolicy;
  readonly #resolver: HostResolver;
  readonly #userAgent: string;
  readonly #tlsCa: HttpImageFetcherOptions['tlsCa'];

  constructor(options: HttpImageFetcherOptions) {
    this.#maxBytes = positiveInt(options.maxBytes, 'maxBytes');
    this.#timeoutMs = positiveInt(options.timeoutMs, 'timeoutMs');
    this.#maxRedirects = positiveInt(options.maxRedirects, 'maxRedirects', 0);
    this.#concurrency = positiveInt(options.concurrency ?? 4, 'concurrency');
    this.#budget = options.budget ?? new ByteBudget(positiveInt(options.maxBytesInFlight ?? 256 * 1024 * 1024, 'maxBytesInFlight'));
    this.#policy = new AddressPolicy({ allowCidrs: options.allowCidrs ?? [], extraPorts: options.allowedPorts ?? [] });
    this.#resolver = options.resolver ?? defaultResolver;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#tlsCa = options.tlsCa;
  }

  check(urls: readonly string[]): void {
    this.#checkedTargets(urls);
  }

  async fetch<T = FetchedImage>(urls: readonly string[], signal?: AbortSignal, options: FetchOptions<T> = {}): Promise<T[]> {
    const targets = this.#checkedTargets(urls);
    if (signal?.aborted) throw unavailable('aborted').at(0);

    const batch = new AbortController();
    const batchSignal = signal === undefined ? batch.signal : AbortSignal.any([signal, batch.signal]);
    // With the caller's lease, the bytes stay counted after the call: the caller holds them.
    const lease = options.lease ?? new BudgetLease(this.#budget);
    const process = options.process ?? keepAsFetched<T>;
    const results: T[] = new Array<T>(urls.length);
    let next = 0;
    let first: ImageFetchError | undefined;

    // With several failures, the first to happen wins and cancels the rest: the
    // others are not waited for, so "lowest index" could not be known anyway.
    const worker = async (): Promise<void> => {
      while (first === undefined && next < targets.length) {
        const index = next++;
        const target = targets[index] as ImageTarget;
        // At work from its download to its normalized copy: the request's other images wait for
        // the room it may give back instead of refusing each other (BudgetLease.reserveWaiting).
        lease.begin();
        try {
          const image = await this.#fetchOne(index, target, batchSignal, signal, lease);
          results[index] = await process(image, batchSignal);
        } catch (error) {
          if (first === undefined && !(error instanceof Cancelled)) {
            first = toFetchError(error, index);
            batch.abort();
          }
        } finally {
          lease.end();
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.#concurrency, targets.length) }, worker));
    } finally {
      if (options.lease === undefined) lease.releaseAll();
    }
    if (first !== undefined) throw first;
    return results;
  }

  /**
   * Every URL is checked before any network work, so a bad URL anywhere in the request is
   * reported at its own (lowest) index and nothing is fetched.
   */
  #checkedTargets(urls: readonly string[]): ImageTarget[] {
    return urls.map((url, index) => {
      try {
        return this.#checkedTarget(toImageTarget(url));
      } catch (error) {
        throw toFetchError(error, index);
      }
    });
  }

  /**
   * What can be judged before any lookup: a literal's address, and a port no address could
   * exempt (without allow CIDRs, a name with a refused port is refused before DNS is asked).
   */
  #checkedTarget(target: ImageTarget): ImageTarget {
    if (target.literal !== undefined && !this.#policy.isAllowedBytes(target.literal)) throw rejected('blocked_address');
    if (!this.#policy.isPortAllowed(target.port, target.literal) && (target.literal !== undefined || !this.#policy.hasExemptions)) {
      throw rejected('bad_port');
    }
    return target;
  }

  async #fetchOne(
    index: number,
    start: ImageTarget,
    batchSignal: AbortSignal,
    callerSignal: AbortSignal | undefined,
    lease: BudgetLease,
  ): Promise<FetchedImage> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const signal = AbortSignal.any([batchSignal, deadline]);
    const seen = new Set<string>([start.url.href]);
    let target = start;
    try {
      for (let redirects = 0; ; redirects++) {
        const { address, family } = await checkedAddress(target, this.#policy, this.#resolver, signal);
        const result = await httpGet({
          target,
          address,
          family,
          signal,
          maxBytes: this.#maxBytes,
          // The common case without a promise; the room held by the request's own images is waited for.
          reserve: (bytes) => lease.tryReserve(bytes) || lease.reserveWaiting(bytes, signal),
          userAgent: this.#userAgent,
          ca: this.#tlsCa,
        });
        if (result.type === 'image') {
          const { bytes, mimeType, sha256 } = result;
          return { index, bytes, mimeType, sizeBytes: bytes.length, sha256 };
        }
        // R22: at most maxRedirects hops, each a new target checked from scratch.
        if (redirects >= this.#maxRedirects) throw rejected('redirect_limit');
        if (result.location === undefined || result.location.trim() === '') throw rejected('bad_redirect');
        target = this.#checkedTarget(toImageTarget(result.location, target.url));
        if (seen.has(target.url.href)) throw rejected('redirect_loop');
        seen.add(target.url.href);
      }
    } catch (error) {
      if (error instanceof ImageRefusal) throw error;
      if (error === ABORTED || signal.aborted) {
        if (deadline.aborted) throw unavailable('timeout');
        if (callerSignal?.aborted) throw unavailable('aborted');
        if (batchSignal.aborted) throw new Cancelled();
      }
      throw unavailable('unexpected');
    }
  }
}

/** A fetch stopped because another image of the same call failed first. */
class Cancelled extends Error {}

function toFetchError(error: unknown, index: number): ImageFetchError {
  if (error instanceof ImageRefusal) return error.at(index);
  if (error instanceof ImageFetchError) return error;
  return new ImageFetchError('unavailable', 'unexpected', index);
}
