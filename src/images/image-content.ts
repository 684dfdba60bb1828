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

const EOI = Buffer.from([0xff, 0xd9]);

/** RST0-RST7 and TEM: markers without a length, as libjpeg reads them (jdmarker.c). */
const isParameterless = (marker: number): boolean => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/** A marker segment of a JPEG before its first scan: the marker byte, where it starts, its length field. */
interface JpegSegment {
  readonly marker: number;
  readonly at: number;
  readonly length: number;
}

/**
 * The marker segments of a JPEG from SOI on, walked by their lengths, up to and including the
 * first scan (SOS) or the end of image (EOI, length 0). Returns 'unwalkable' when it meets a
 * byte that is no marker, 'ended' when the bytes end among the headers.
 */
function* jpegSegments(bytes: Buffer): Generator<JpegSegment, 'unwalkable' | 'ended'> {
  let at = 2; // after SOI
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return 'unwalkable';
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      // Fill bytes: a run of them is skipped in one go (a generator step per byte would cost 37 ms of
      // the event loop for 10 MiB of them).
      at += 1;
      while (at + 1 < bytes.length && bytes[at + 1] === 0xff) at += 1;
      continue;
    }
    if (marker === 0xd9) {
      yield { marker, at, length: 0 };
      return 'ended';
    }
    if (isParameterless(marker)) {
      at += 2;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    yield { marker, at, length };
    if (marker === 0xda) return 'ended';
    at += 2 + length;
  }
  return 'ended';
}

/**
 * False when a JPEG's entropy-coded data has no end-of-image marker after its first scan: the file
 * ends before the image does (R38, `truncated`). libvips notices a cut only when its decoder
 * asks for bytes that are not there, so a file that lost just its last bytes may decode without
 * a word; this check makes that refusal certain. The markers before the scan are walked by their
 * lengths (an EXIF thumbnail's own end marker is inside APP1, before the scan), and anything after
 * the end marker (a motion photo's video) is allowed. Bytes it cannot walk get no verdict (true):
 * the decoder judges them.
 */
export function jpegHasEnd(bytes: Buffer): boolean {
  const walk = jpegSegments(bytes);
  for (let step = walk.next(); ; step = walk.next()) {
    // Walked to the end without a scan: the file ends among the headers. Unwalkable: no verdict.
    if (step.done === true) return step.value === 'unwalkable';
    const { marker, at, length } = step.value;
    if (marker === 0xd9) return true;
    // From the end: an end marker is at or near it (before a motion photo's video at most).
    if (marker === 0xda) return bytes.lastIndexOf(EOI) >= at + 2 + length;
  }
}

/**
 * The scans of a JPEG, counted up to `stopAfter + 1` (enough to refuse). A progressive JPEG can
 * hold any number of scans, and a scan that codes every block as one end-of-band run is a few
 * dozen bytes that the decoder still walks the whole frame for: a few hundred KB of them keep it
 * busy for minutes (libjpeg-turbo's LJT-01-003, "valid JPEG files that take a long time to
 * decompress"; its issues #252 and #284: the only remedy is a limit on the scans). libjpeg reads
 * them all inside one call, where sharp's timeout cannot stop it, so they are counted here first.
 * The markers before the first scan are walked by their lengths (an EXIF thumbnail's scan does
 * not count); after it, entropy-coded data is skipped (a 0xFF there is stuffed, FF00, or a
 * restart marker) and each marker segment walked, to the end-of-image marker.
 */
export function jpegScanCount(bytes: Buffer, stopAfter: number): number {
  let at = -1;
  for (const { marker, at: start, length } of jpegSegments(bytes)) {
    if (marker === 0xda) at = start + 2 + length;
  }
  if (at < 0) return 0;
  let scans = 1;
  while (scans <= stopAfter) {
    const ff = nextSegmentMarker(bytes, at);
    if (ff < 0) return scans;
    const marker = bytes[ff + 1] as number;
    if (marker === 0xd9 || ff + 4 > bytes.length) return scans;
    if (marker === 0xda) scans += 1;
    at = ff + 2 + bytes.readUInt16BE(ff + 2);
  }
  return scans;
}

/**
 * Where the next marker with a length (or EOI) starts, from `from` in entropy-coded data; -1
 * when there is none. As libjpeg reads that data (jdhuff.c, jdmarker.c): FF 00 is a stuffed
 * byte, FF FF a fill byte, and RSTn and TEM (FF 01) are markers without a length, so none of
 * them ends the walk (TEM read as a length would skip up to 64 KB of scans unseen). A plain loop:
 * an indexOf call per FF 00 pair would cost 0.2 s of the event loop for 10 MiB of them, this 11 ms.
 */
function nextSegmentMarker(bytes: Buffer, from: number): number {
  const last = bytes.length - 1;
  for (let i = from; i < last; i++) {
    if (bytes[i] !== 0xff) continue;
    const marker = bytes[i + 1] as number;
    if (marker !== 0x00 && marker !== 0xff && !isParameterless(marker)) return i;
  }
  return -1;
}

/** A JPEG frame's components as its SOF header declares them. */
export interface JpegFrame {
  /** Samples a pixel over all components: sum of Hi x Vi / (Hmax x Vmax); 1 for grayscale. */
  readonly samplesPerPixel: number;
  /** The MCU's size in pixels (8 x Hmax by 8 x Vmax): components are stored in whole MCUs. */
  readonly mcuWidth: number;
  readonly mcuHeight: number;
}

/**
 * The frame header (SOF) of a JPEG, found as jpegHasEnd walks; undefined when there is none
 * before the first scan, or it is malformed. sharp's metadata names the subsampling only as
 * 4:4:4 or 4:2:0 (any subsampling is 4:2:0 there, grayscale 4:4:4), which is not enough to size
 * the decoder's coefficient buffer.
 */
export function jpegFrame(bytes: Buffer): JpegFrame | undefined {
  for (const { marker, at } of jpegSegments(bytes)) {
    // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker < 0xc0 || marker > 0xcf || marker === 0xc4 || marker === 0xc8 || marker === 0xcc) continue;
    const count = bytes[at + 9];
    if (count === undefined || count === 0 || at + 10 + 3 * count > bytes.length) return undefined;
    const factors: [number, number][] = [];
    for (let i = 0; i < count; i++) {
      const hv = bytes[at + 11 + 3 * i] as number;
      factors.push([hv >> 4, hv & 0x0f]);
    }
    if (factors.some(([h, v]) => h < 1 || h > 4 || v < 1 || v > 4)) return undefined;
    const hMax = Math.max(...factors.map(([h]) => h));
    const vMax = Math.max(...factors.map(([, v]) => v));
    const samplesPerPixel = factors.reduce((sum, [h, v]) => sum + (h * v) / (hMax * vMax), 0);
    return { samplesPerPixel, mcuWidth: 8 * hMax, mcuHeight: 8 * vMax };
  }
  return undefined;
}
