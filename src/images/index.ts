// Public surface of the remote image boundary (spec 4.1, R22, R38).
export type { FetchedImage, FetchOptions, ImageFetcher, ImageMimeType } from './image-fetcher.ts';
export { IMAGE_MIME_TYPES } from './image-fetcher.ts';
export {
  ImageFetchError,
  ImageRefusal,
  REJECTED_REASONS,
  UNAVAILABLE_REASONS,
} from './image-fetch-error.ts';
export type { ImageFetchErrorKind, ImageFetchReason } from './image-fetch-error.ts';
export { HttpImageFetcher, DEFAULT_USER_AGENT } from './http-image-fetcher.ts';
export type { HttpImageFetcherOptions } from './http-image-fetcher.ts';
export { caresResolver, defaultResolver } from './checked-address.ts';
export type { CaresResolverOptions, HostResolver, ResolvedAddress } from './checked-address.ts';
export { BudgetLease, ByteBudget } from './byte-budget.ts';
export { ImageBoundary } from './image-boundary.ts';
export type { ImageBoundaryOptions } from './image-boundary.ts';
export { ImageSet } from './image-set.ts';
export type { AcceptedImage } from './image-set.ts';
export type { ImageFacts, ImageNormalizer, Normalization, NormalizedBytes } from './image-normalizer.ts';
export { SharpImageNormalizer, decodeRefusal } from './sharp-normalizer.ts';
export type { SharpImageNormalizerOptions } from './sharp-normalizer.ts';
export { WorkQueue } from './work-queue.ts';
export { AddressPolicy } from './address-policy.ts';
export { FakeImageFetcher, TINY_PNG } from './fake-image-fetcher.ts';
export type { CannedFailure, CannedImage, FakeImageFetcherOptions } from './fake-image-fetcher.ts';
