// The ImageFetcher port (spec 4.1): the image boundary (image-boundary.ts) hands it the
// request's image URLs and gets bytes back, never URLs (R22).
import type { BudgetLease } from './byte-budget.ts';

export const IMAGE_MIME_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export type ImageMimeType = (typeof IMAGE_MIME_TYPES)[number];

export interface FetchedImage {
  /** Position of the URL in the request's array. */
  index: number;
  bytes: Buffer;
  mimeType: ImageMimeType;
  sizeBytes: number;
  /** Lower-case hex SHA-256 of `bytes`. */
  sha256: string;
}

export interface FetchOptions<T> {
  /**
   * The caller's lease on the byte budget (R39): every body is reserved on it and stays there
   * after the call, for the caller to release. Without it, the call uses a lease of its own
   * and releases it when it returns or throws.
   */
  readonly lease?: BudgetLease;
  /**
   * Runs on each image as soon as its body is complete, within the call's concurrency, and its
   * result takes the image's place (the boundary normalizes here, so an original leaves memory
   * while the other images still download). An ImageRefusal it throws fails the call at that
   * image's index like a fetch failure; `signal` aborts when another image has failed.
   */
  readonly process?: (image: FetchedImage, signal: AbortSignal) => Promise<T>;
}

/** What a fetcher does with each image when the caller passes no `process`: keeps it as fetched. */
export function keepAsFetched<T>(image: FetchedImage): Promise<T> {
  return Promise.resolve(image as unknown as T);
}

export interface ImageFetcher {
  /**
   * The checks that need no network (a URL's form, an address literal, a port), on every URL:
   * throws ImageFetchError for the first that fails, at its index. The boundary runs them
   * before it asks for room, so an unsafe URL is refused as such (R23: 422), not as a busy
   * service, whatever the load.
   */
  check?(urls: readonly string[]): void;
  /**
   * Fetches every URL or throws ImageFetchError for the first one that fails. The result is in
   * the order of `urls`: the images, or what `options.process` made of them.
   */
  fetch<T = FetchedImage>(urls: readonly string[], signal?: AbortSignal, options?: FetchOptions<T>): Promise<T[]>;
}
