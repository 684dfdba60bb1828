// The ImageFetcher port (issue 3): the report pipeline's step 7 hands it the
// request's image URLs and gets bytes back, never URLs (R22).

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

export interface ImageFetcher {
  /**
   * Fetches every URL or throws ImageFetchError for the first one that fails.
   * The result is in the order of `urls`.
   *
   * The bytes returned stay counted against the process-wide budget until `retainUntil`
   * settles (the caller holds them until generation is done); without it, until the call ends.
   */
  fetch(urls: readonly string[], signal?: AbortSignal, retainUntil?: Promise<unknown>): Promise<FetchedImage[]>;
}
