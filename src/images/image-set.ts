// The images of one request, as the image boundary accepted them (R38, R39): the one
// object that holds their normalized bytes and their part of the process-wide byte budget, and
// the one that gives both back, exactly once, when disposed (`using`). Their metadata outlives
// the bytes: it is what the stored report keeps.
import type { BudgetLease } from './byte-budget.ts';
import type { ImageFacts, NormalizedBytes } from './image-normalizer.ts';

/** What is kept of an accepted image: the original's and the normalized form's facts, never bytes or URLs. */
export interface AcceptedImage {
  /** Position of the URL in the request's array. */
  readonly index: number;
  readonly original: ImageFacts & {
    /** Lower-case hex SHA-256 of the bytes fetched. */
    readonly sha256: string;
  };
  readonly normalized: ImageFacts;
}

export interface HeldImage {
  readonly accepted: AcceptedImage;
  readonly normalized: NormalizedBytes;
}

export class ImageSet implements Disposable {
  readonly accepted: readonly AcceptedImage[];
  #normalized: readonly NormalizedBytes[] | undefined;
  #lease: BudgetLease | undefined;

  /** Takes over `lease`: from now on only this set releases it. */
  constructor(images: readonly HeldImage[], lease: BudgetLease | undefined) {
    this.accepted = Object.freeze(images.map((image) => image.accepted));
    this.#normalized = Object.freeze(images.map((image) => image.normalized));
    this.#lease = lease;
  }

  /** A request without images. */
  static empty(): ImageSet {
    return new ImageSet([], undefined);
  }

  /** The normalized images, bytes included, in request order; gone once the set is disposed. */
  get normalized(): readonly NormalizedBytes[] {
    if (this.#normalized === undefined) throw new Error('ImageSet: the images were used after they were released');
    return this.#normalized;
  }

  get disposed(): boolean {
    return this.#normalized === undefined;
  }

  /** Bytes this set holds on the budget now: normalized images and the generator's planned copies (R39). */
  get heldBytes(): number {
    return this.#lease?.held ?? 0;
  }

  /** Drops the bytes and gives their budget back; a second call does nothing. */
  [Symbol.dispose](): void {
    this.#normalized = undefined;
    this.#lease?.releaseAll();
    this.#lease = undefined;
  }
}
