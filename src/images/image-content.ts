// Content-type rules of R22: the declared media type must be one of the four and
// the leading bytes must be that format.
import { IMAGE_MIME_TYPES } from './image-fetcher.ts';
import type { ImageMimeType } from './image-fetcher.ts';

/** The media type of a Content-Type header (parameters dropped, case folded), if one of the four. */
export function acceptedMediaType(header: string | undefined): ImageMimeType | undefined {
  if (header === undefined) return undefined;
  const mediaType = (header.split(';')[0] ?? '').trim().toLowerCase();
  return IMAGE_MIME_TYPES.find((t) => t === mediaType);
}

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');

/** Bytes needed before `signatureMatches` can answer for any type. */
export const SIGNATURE_BYTES = 12;

const has = (bytes: Buffer, sig: Buffer, at = 0): boolean => bytes.subarray(at, at + sig.length).equals(sig);

/** True when the leading bytes are the signature of `mimeType` (PNG header on JPEG bytes is false). */
export function signatureMatches(mimeType: ImageMimeType, head: Buffer): boolean {
  switch (mimeType) {
    case 'image/png':
      return has(head, PNG);
    case 'image/jpeg':
      return has(head, JPEG);
    case 'image/gif':
      return has(head, GIF87) || has(head, GIF89);
    case 'image/webp':
      return has(head, RIFF) && has(head, WEBP, 8);
  }
}
