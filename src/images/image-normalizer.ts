// The ImageNormalizer port (R38): every fetched image is decoded before it is
// accepted, and only its normalized form goes on to the generator (R22). The adapter is
// SharpImageNormalizer (libvips); a test may hand the service another (ServiceOverrides).
import type { ImageMimeType } from './image-fetcher.ts';
import type { Admission } from './work-queue.ts';
import type { BudgetLease } from './byte-budget.ts';

/** What is known of one form of an image: type, byte size and pixel size. */
export interface ImageFacts {
  readonly mimeType: ImageMimeType;
  readonly sizeBytes: number;
  /** Pixels, as stored in the file (for an original: before its EXIF orientation is applied). */
  readonly width: number;
  readonly height: number;
}

/** The normalized form of an image, with its bytes. */
export interface NormalizedBytes extends ImageFacts {
  readonly bytes: Buffer;
}

export interface Normalization {
  /** The original's pixel size, as its header declares it (first frame of an animation). */
  readonly original: { readonly width: number; readonly height: number };
  readonly normalized: NormalizedBytes;
}

export interface ImageNormalizer {
  /**
   * Room in the queue for `count` images, promised before any of them is fetched; undefined when
   * there is none (the request is then refused at once). Dispose it when the request is done.
   * Absent: every image takes its chance in normalize(). `owner` (the customer) holds at most
   * its share of the places, however slow its downloads.
   */
  admit?(count: number, owner?: string): Admission | undefined;
  /**
   * Decodes `bytes` (already sniffed as `mimeType`) and returns its normalized form; refuses
   * with ImageRefusal: rejected (`undecodable`, `truncated`, `too_many_pixels`,
   * `frame_too_large`, `content_mismatch`) or unavailable (`normalizer_busy`,
   * `normalizer_timeout`, `aborted`, `budget`).
   * `signal` takes a job out of the queue while it waits; a started job runs to its end.
   * `lease`: the request's share of the image byte budget (R39), holding the original. The
   * decoded pixels (width x height x channels x bytes per sample, from the header) are reserved
   * on it before decoding and released after. A frame that with its original is larger than the
   * whole budget is rejected (`frame_too_large`, R23 oversize: it could never fit); one that
   * would fit an empty budget but not the budget as it is now is unavailable (`budget`). Either
   * way, without decoding.
   */
  normalize(bytes: Buffer, mimeType: ImageMimeType, signal?: AbortSignal, admission?: Admission, lease?: BudgetLease): Promise<Normalization>;
}
