// The only error the image boundary throws (R23, R38). Its message is one of two fixed
// texts (spec section 7) and its properties name the image and a reason from a
// closed list: never an address, DNS answer, redirect target, socket error or
// library message (libvips' included), so that it can be logged, counted
// (ers_image_fetches_total{outcome,reason}) and mapped to a response as is.

export type ImageFetchErrorKind = 'rejected' | 'unavailable';

/** R23 "cannot be accepted safely": 422 remote_evidence_image_rejected. */
export const REJECTED_REASONS = [
  'invalid_url',
  'bad_scheme',
  'userinfo',
  'bad_port',
  'blocked_name',
  'blocked_address',
  'redirect_limit',
  'redirect_loop',
  'bad_redirect',
  'http_status',
  'too_large',
  'bad_content_type',
  'bad_encoding',
  'content_mismatch',
  'empty_body',
  'bad_response',
  // More body than the response's own Content-Length, or a chunk that breaks its framing.
  'length_mismatch',
  'tls',
  // R38, decoding (sharp-normalizer.ts): bytes that do not decode as their type, that end
  // before the image does, that declare more than IMAGE_MAX_PIXELS pixels, or a JPEG of more
  // scans than any encoder writes (a decompression bomb in time: image-content.ts).
  'undecodable',
  'truncated',
  'too_many_pixels',
  'too_many_scans',
  // R23 oversize with R39: a decoded frame that, with its original, is larger than the whole
  // IMAGE_BYTES_IN_FLIGHT_MAX, so that it could not fit even with nothing else in flight.
  'frame_too_large',
] as const;

/** R23 "cannot currently be retrieved safely": 503 remote_evidence_image_unavailable. */
export const UNAVAILABLE_REASONS = [
  'dns_failure',
  'connection',
  'timeout',
  'http_status',
  'budget',
  'aborted',
  'unexpected',
  // R38: the bounded queue of normalization work is full, or an image waited in it past its bound.
  'normalizer_busy',
  // R38: one normalization ran past its time bound (the machine is overloaded, not the image refused).
  'normalizer_timeout',
] as const;

type RejectedReason = (typeof REJECTED_REASONS)[number];
type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];
export type ImageFetchReason = RejectedReason | UnavailableReason;

const MESSAGES: Record<ImageFetchErrorKind, string> = {
  rejected: 'One or more remote evidence images could not be accepted safely.',
  unavailable: 'One or more remote evidence images could not be retrieved safely.',
};

export class ImageFetchError extends Error {
  override readonly name = 'ImageFetchError';
  readonly kind: ImageFetchErrorKind;
  readonly reason: ImageFetchReason;
  readonly imageIndex: number;

  constructor(kind: ImageFetchErrorKind, reason: ImageFetchReason, imageIndex: number) {
    super(MESSAGES[kind]);
    this.kind = kind;
    this.reason = reason;
    this.imageIndex = imageIndex;
  }
}

/** A failure of one image before its index is attached (internal to the adapter). */
export class ImageRefusal extends Error {
  override readonly name = 'ImageRefusal';
  readonly kind: ImageFetchErrorKind;
  readonly reason: ImageFetchReason;

  constructor(kind: 'rejected', reason: RejectedReason);
  constructor(kind: 'unavailable', reason: UnavailableReason);
  constructor(kind: ImageFetchErrorKind, reason: ImageFetchReason) {
    super(MESSAGES[kind]);
    this.kind = kind;
    this.reason = reason;
  }

  at(imageIndex: number): ImageFetchError {
    return new ImageFetchError(this.kind, this.reason, imageIndex);
  }
}

export const rejected = (reason: RejectedReason): ImageRefusal => new ImageRefusal('rejected', reason);
export const unavailable = (reason: UnavailableReason): ImageRefusal => new ImageRefusal('unavailable', reason);
