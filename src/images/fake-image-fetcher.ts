// A fake ImageFetcher for other modules' unit tests (every port has a real
// and a fake adapter). No network: canned images by URL, canned failures by URL.
import { createHash } from 'node:crypto';
import { ImageFetchError, ImageRefusal } from './image-fetch-error.ts';
import type { ImageFetchErrorKind, ImageFetchReason } from './image-fetch-error.ts';
import { keepAsFetched, type FetchedImage, type FetchOptions, type ImageFetcher, type ImageMimeType } from './image-fetcher.ts';

export interface CannedImage {
  readonly bytes: Buffer;
  readonly mimeType: ImageMimeType;
}

export interface CannedFailure {
  readonly kind: ImageFetchErrorKind;
  readonly reason?: ImageFetchReason;
}

export interface FakeImageFetcherOptions {
  /** Image returned for a URL; URLs not listed get `defaultImage`. */
  readonly images?: Readonly<Record<string, CannedImage>>;
  /** Failure thrown for a URL (the lowest failing index wins). */
  readonly failures?: Readonly<Record<string, CannedFailure>>;
  /** Default: TINY_PNG. */
  readonly defaultImage?: CannedImage;
}

/** A real 1x1 PNG. */
export const TINY_PNG: CannedImage = {
  mimeType: 'image/png',
  bytes: Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  ),
};

export class FakeImageFetcher implements ImageFetcher {
  /** Every call's URLs, in order. */
  readonly calls: string[][] = [];
  readonly #options: FakeImageFetcherOptions;

  constructor(options: FakeImageFetcherOptions = {}) {
    this.#options = options;
  }

  async fetch<T = FetchedImage>(urls: readonly string[], signal?: AbortSignal, options: FetchOptions<T> = {}): Promise<T[]> {
    this.calls.push([...urls]);
    if (signal?.aborted) throw new ImageFetchError('unavailable', 'aborted', 0);
    const failures = this.#options.failures ?? {};
    for (const [index, url] of urls.entries()) {
      const failure = failures[url];
      if (failure !== undefined) {
        const reason = failure.reason ?? (failure.kind === 'rejected' ? 'blocked_address' : 'connection');
        throw new ImageFetchError(failure.kind, reason, index);
      }
    }
    const process = options.process ?? keepAsFetched<T>;
    const results: T[] = [];
    // One at a time, in order: the canned bytes are counted on the caller's lease like real ones.
    for (const [index, url] of urls.entries()) {
      const image = this.#options.images?.[url] ?? this.#options.defaultImage ?? TINY_PNG;
      const bytes = Buffer.from(image.bytes);
      if (options.lease !== undefined && !options.lease.tryReserve(bytes.length)) throw new ImageFetchError('unavailable', 'budget', index);
      const fetched = { index, bytes, mimeType: image.mimeType, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      try {
        results.push(await process(fetched, signal ?? new AbortController().signal));
      } catch (error) {
        throw error instanceof ImageRefusal ? error.at(index) : new ImageFetchError('unavailable', 'unexpected', index);
      }
    }
    return results;
  }
}
