// Step 7 as one call (spec 4.1, R22, R23, R38, R39): fetch every image through the
// hardened fetcher, decode and normalize each as soon as its body is complete, and hand back
// one ImageSet that owns the normalized bytes and their budget. On the request's one budget
// lease: each original while it downloads and waits to be normalized, then, in its place, the
// normalized bytes plus the copies the generator will make of them (base64 parts, request body).
import { BudgetLease } from './byte-budget.ts';
import type { ByteBudget } from './byte-budget.ts';
import { ImageFetchError, unavailable } from './image-fetch-error.ts';
import type { FetchedImage, ImageFetcher } from './image-fetcher.ts';
import type { ImageFacts, ImageNormalizer } from './image-normalizer.ts';
import { ImageSet } from './image-set.ts';
import { releaseBytes } from './release-bytes.ts';
import type { HeldImage } from './image-set.ts';
import type { Admission } from './work-queue.ts';

export interface ImageBoundaryOptions {
  readonly fetcher: ImageFetcher;
  readonly normalizer: ImageNormalizer;
  /** IMAGE_BYTES_IN_FLIGHT_MAX, one per process. */
  readonly budget: ByteBudget;
  /**
   * Bytes the generator will hold besides the normalized image while it generates: the Gemini
   * adapter's base64 part and request body (ReportGenerator.imageCopyBytes). Default none.
   */
  readonly generatorCopyBytes?: (image: ImageFacts) => number;
}

export class ImageBoundary {
  readonly #fetcher: ImageFetcher;
  readonly #normalizer: ImageNormalizer;
  readonly #budget: ByteBudget;
  readonly #copyBytes: (image: ImageFacts) => number;

  constructor(options: ImageBoundaryOptions) {
    this.#fetcher = options.fetcher;
    this.#normalizer = options.normalizer;
    this.#budget = options.budget;
    this.#copyBytes = options.generatorCopyBytes ?? (() => 0);
  }

  /**
   * The request's images, normalized, in request order; throws ImageFetchError (R23) for the
   * first image that fails, and then holds nothing. The caller owns the set: dispose it when the
   * generator is done.
   */
  async acquire(urls: readonly string[], signal?: AbortSignal, owner?: string): Promise<ImageSet> {
    if (urls.length === 0) return ImageSet.empty();
    // What needs no network is judged first: an unsafe URL is 422 (R23) even when the queue is
    // full, and at its own index.
    this.#fetcher.check?.(urls);
    // Room for every image of the request in the normalization queue, decided before any is
    // fetched: under overload the request is refused at once, without downloading a byte (R38).
    using admission = this.#admit(urls.length, owner);
    const lease = new BudgetLease(this.#budget);
    try {
      const images = await this.#fetcher.fetch(urls, signal, {
        lease,
        process: (fetched, imageSignal) => this.#normalize(fetched, lease, imageSignal, admission),
      });
      return new ImageSet(images, lease);
    } catch (error) {
      lease.releaseAll();
      throw error;
    }
  }

  #admit(count: number, owner: string | undefined): Admission | undefined {
    if (this.#normalizer.admit === undefined) return undefined;
    const admission = this.#normalizer.admit(count, owner);
    if (admission === undefined) throw new ImageFetchError('unavailable', 'normalizer_busy', 0);
    return admission;
  }

  async #normalize(fetched: FetchedImage, lease: BudgetLease, signal: AbortSignal, admission: Admission | undefined): Promise<HeldImage> {
    let normalization;
    try {
      normalization = await this.#normalizer.normalize(fetched.bytes, fetched.mimeType, signal, admission, lease);
    } finally {
      // The original's last use (R39): its memory goes now, as its budget does below.
      releaseBytes(fetched.bytes);
    }
    const { original, normalized } = normalization;
    const facts: ImageFacts = { mimeType: normalized.mimeType, sizeBytes: normalized.sizeBytes, width: normalized.width, height: normalized.height };
    // R39: the original leaves the budget here; the normalized bytes and their planned copies enter.
    if (!lease.exchange(fetched.sizeBytes, normalized.sizeBytes + this.#copyBytes(facts))) throw unavailable('budget');
    return {
      accepted: {
        index: fetched.index,
        original: { mimeType: fetched.mimeType, sizeBytes: fetched.sizeBytes, width: original.width, height: original.height, sha256: fetched.sha256 },
        normalized: facts,
      },
      normalized,
    };
  }
}
