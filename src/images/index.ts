// Public surface of the remote image boundary (issue 3).
export type { FetchedImage, ImageFetcher, ImageMimeType } from './image-fetcher.ts';
export { IMAGE_MIME_TYPES } from './image-fetcher.ts';
export { ImageFetchError, REJECTED_REASONS, UNAVAILABLE_REASONS } from './image-fetch-error.ts';
export type { ImageFetchErrorKind, ImageFetchReason } from './image-fetch-error.ts';
export { HttpImageFetcher, DEFAULT_USER_AGENT } from './http-image-fetcher.ts';
export type { HttpImageFetcherOptions } from './http-image-fetcher.ts';
export { defaultResolver } from './checked-address.ts';
export type { HostResolver, ResolvedAddress } from './checked-address.ts';
export { ByteBudget } from './byte-budget.ts';
export { AddressPolicy } from './address-policy.ts';
export { FakeImageFetcher, TINY_PNG } from './fake-image-fetcher.ts';
export type { CannedFailure, CannedImage, FakeImageFetcherOptions } from './fake-image-fetcher.ts';
