// A fake ImageNormalizer for other modules' unit tests (every port has a real and a
// fake adapter): no decoding; the bytes pass through as their own "normalized" form, with the
// pixel size a test gives (1 x 1 by default).
import type { ImageMimeType } from './image-fetcher.ts';
import type { ImageNormalizer, Normalization } from './image-normalizer.ts';

export class FakeImageNormalizer implements ImageNormalizer {
  /** Every call's byte length, in order. */
  readonly calls: number[] = [];
  readonly #size: { width: number; height: number };

  constructor(size: { width: number; height: number } = { width: 1, height: 1 }) {
    this.#size = size;
  }

  async normalize(bytes: Buffer, mimeType: ImageMimeType): Promise<Normalization> {
    this.calls.push(bytes.length);
    const copy = Buffer.from(bytes);
    return { original: { ...this.#size }, normalized: { bytes: copy, mimeType, sizeBytes: copy.length, ...this.#size } };
  }
}
