// Real image files for the normalization tests, made with sharp in the test
// run: a phone-like photo with EXIF orientation 6, GPS, XMP, IPTC, an ICC profile and a
// comment; transparent PNG and WebP; animated GIF and WebP; CMYK JPEG; 16-bit PNG; and the bad
// ones: truncated, polyglot, and decompression bombs that declare far more pixels than they carry.
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Gradients and noise, so that the file compresses like a photo and not like a flat fill. */
function photoPixels(width: number, height: number): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  const noise = randomBytes(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const n = ((noise[i] ?? 128) - 128) / 6;
      raw[i * 3] = (x / width) * 200 + 30 + n;
      raw[i * 3 + 1] = (y / height) * 180 + 40 + n;
      raw[i * 3 + 2] = ((x + y) / (width + height)) * 150 + 60 + n;
    }
  }
  return raw;
}

/** Pixels of one colour with a red square in the top-left corner: where it lands shows the rotation. */
function markedPixels(width: number, height: number): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const red = x < width / 4 && y < height / 4;
      raw.set(red ? [230, 20, 20] : [20, 40, 220], (y * width + x) * 3);
    }
  }
  return raw;
}

const GPS = { GPSLatitudeRef: 'N', GPSLatitude: '47/1 22/1 30/1', GPSLongitudeRef: 'E', GPSLongitude: '8/1 32/1 15/1' };
const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Jane Tenant</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>`;

/** A JPEG segment: marker, length (counting itself), payload. */
function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker, 0);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** Inserts JPEG segments right after SOI. */
function withJpegSegments(jpeg: Buffer, segments: readonly Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/** An IPTC block (APP13, Photoshop 3.0 resource 0x0404) naming a by-line, and a COM comment. */
const IPTC_SEGMENT = segment(
  0xed,
  Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), Buffer.from('8BIM\x04\x04\0\0\0\0\0\x0e\x1c\x02\x50\0\x0aJane Tenan', 'latin1')]),
);
export const COMMENT_SEGMENT = segment(0xfe, Buffer.from('taken at 12 Example Street, flat 3B', 'latin1'));

export interface PhotoOptions {
  readonly width: number;
  readonly height: number;
  readonly orientation?: number;
  /** `marked`: the red corner of markedPixels; default: photo-like noise. */
  readonly pixels?: 'photo' | 'marked';
  readonly quality?: number;
}

/** A JPEG as a phone writes it: EXIF (orientation, make, GPS), XMP, IPTC, a Display P3 ICC profile, a comment. */
export async function phonePhoto(options: PhotoOptions): Promise<Buffer> {
  const { width, height } = options;
  const pixels = options.pixels === 'marked' ? markedPixels(width, height) : photoPixels(width, height);
  const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: options.quality ?? 92 })
    .withMetadata({ orientation: options.orientation ?? 1 })
    .withExif({ IFD0: { Make: 'ExamplePhone', Model: 'X 12' }, IFD3: GPS })
    .withXmp(XMP)
    .withIccProfile('p3')
    .toBuffer();
  return withJpegSegments(jpeg, [IPTC_SEGMENT, COMMENT_SEGMENT]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** Inserts PNG chunks right after IHDR. */
export function withPngChunks(png: Buffer, chunks: readonly { type: string; data: Buffer }[]): Buffer {
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks.map((c) => pngChunk(c.type, c.data)), png.subarray(ihdrEnd)]);
}

/** A half-transparent PNG (RGBA) with a text comment. */
export async function transparentPng(width: number, height: number): Promise<Buffer> {
  const png = await sharp({ create: { width, height, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.4 } } }).png().toBuffer();
  return withPngChunks(png, [{ type: 'tEXt', data: Buffer.from('Comment\0owner: Jane Tenant', 'latin1') }]);
}

export async function transparentWebp(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 30, g: 200, b: 30, alpha: 0.4 } } }).webp().withXmp(XMP).toBuffer();
}

/** `frames` frames of distinct colours (the first red), joined into one animation. */
export async function animation(format: 'gif' | 'webp', frames: number, width = 48, height = 32): Promise<Buffer> {
  const colours = ['#e01010', '#10e010', '#1010e0', '#e0e010'];
  const inputs = await Promise.all(
    Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 3, background: colours[i % 4]! } }).png().toBuffer()),
  );
  const joined = sharp(inputs, { join: { animated: true } });
  return format === 'gif' ? joined.gif({ delay: 100 }).toBuffer() : joined.webp({ delay: 100 }).toBuffer();
}

/** A CMYK JPEG (what print workflows and some scanners write). */
export async function cmykJpeg(width: number, height: number): Promise<Buffer> {
  return sharp(photoPixels(width, height), { raw: { width, height, channels: 3 } }).toColourspace('cmyk').jpeg({ quality: 90 }).toBuffer();
}

/** A 16-bit-per-channel RGB PNG. */
export async function png16(width: number, height: number): Promise<Buffer> {
  return sharp(photoPixels(width, height), { raw: { width, height, channels: 3 } }).toColourspace('rgb16').png().toBuffer();
}

/** A PNG whose header declares width x height but whose data holds a few rows only: a few KB. */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = deflateSync(Buffer.alloc((width * 3 + 1) * 4), { level: 9 });
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', rows), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A small real JPEG whose frame header (SOF0) is rewritten to declare width x height. */
export async function jpegBomb(width: number, height: number): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } }).jpeg({ progressive: false }).toBuffer();
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  const out = Buffer.from(jpeg);
  out.writeUInt16BE(height, sof + 5);
  out.writeUInt16BE(width, sof + 7);
  return out;
}

/**
 * A valid progressive grey JPEG whose DC scan is followed by `scans` AC scans of a few dozen
 * bytes each, every one coding all the frame's blocks as end-of-band runs (EOB14, one Huffman
 * code of one bit): libjpeg-turbo's LJT-01-003, a file of a few hundred KB that the decoder
 * walks the whole frame for, once per scan.
 */
export async function manyScanJpeg(width: number, height: number, scans: number): Promise<Buffer> {
  const source = await sharp({ create: { width, height, channels: 3, background: '#777' } }).toColourspace('b-w').jpeg({ progressive: true, quality: 50 }).toBuffer();
  // Everything up to the end of the first (DC) scan's entropy-coded data.
  let at = 2;
  let cut = -1;
  let component = 1;
  while (at + 4 <= source.length && cut < 0) {
    const marker = source[at + 1] as number;
    const length = source.readUInt16BE(at + 2);
    if (marker === 0xc2) component = source[at + 10] as number;
    if (marker === 0xda) {
      let p = at + 2 + length;
      while (!(source[p] === 0xff && source[p + 1] !== 0x00 && !((source[p + 1] as number) >= 0xd0 && (source[p + 1] as number) <= 0xd7))) p++;
      cut = p;
    }
    at += 2 + length;
  }
  const counts = Buffer.alloc(16);
  counts[0] = 1;
  const acTable = Buffer.concat([Buffer.from([0xff, 0xc4, 0x00, 2 + 1 + 16 + 1, 0x11]), counts, Buffer.from([0xe0])]);
  const sos = Buffer.from([0xff, 0xda, 0x00, 8, 1, component, 0x01, 1, 63, 0x00]);
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  let bits = '';
  for (let i = 0; i < Math.ceil(blocks / 32767); i++) bits += '0' + '1'.repeat(14);
  while (bits.length % 8 !== 0) bits += '1';
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const byte = parseInt(bits.slice(i, i + 8), 2);
    data.push(byte);
    if (byte === 0xff) data.push(0x00);
  }
  const scan = Buffer.concat([sos, Buffer.from(data)]);
  return Buffer.concat([source.subarray(0, cut), acTable, ...Array.from({ length: scans }, () => scan), Buffer.from([0xff, 0xd9])]);
}

/** The first `fraction` of the bytes: a download cut short. */
export const truncated = (bytes: Buffer, fraction = 0.6): Buffer => bytes.subarray(0, Math.floor(bytes.length * fraction));

/** A valid signature, then garbage: passes the sniffing of R22, is no image. */
export function polyglot(signature: Buffer): Buffer {
  return Buffer.concat([signature, Buffer.from('<?php system($_GET["c"]); ?> not an image at all '.repeat(20), 'latin1')]);
}
