// Every metadata block an image file carries, read from the container itself (JPEG segments,
// PNG chunks, WebP RIFF chunks) rather than from a decoder that might skip what it does not
// know: what R38 requires to be gone is whatever is not pixels.
import sharp from 'sharp';

// pHYs (pixel density) is the PNG twin of the density fields of JPEG's JFIF APP0 header, which
// is not counted either: it says how big a pixel is, nothing about who, where or with what.
const PIXELS_PNG = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'pHYs']);
const PIXELS_WEBP = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF']);

function jpegBlocks(bytes: Buffer): string[] {
  const blocks: string[] = [];
  for (let at = 2; at + 4 <= bytes.length; ) {
    if (bytes[at] !== 0xff) throw new Error(`not a JPEG segment at ${at}`);
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xda) break; // start of scan: pixels from here on
    const length = bytes.readUInt16BE(at + 2);
    const payload = bytes.subarray(at + 4, at + 2 + length);
    const text = payload.subarray(0, 32).toString('latin1');
    if (marker === 0xe1 && text.startsWith('Exif\0')) blocks.push('exif');
    else if (marker === 0xe1 && text.startsWith('http://ns.adobe.com/xap')) blocks.push('xmp');
    else if (marker === 0xed) blocks.push('iptc');
    else if (marker === 0xe2 && text.startsWith('ICC_PROFILE')) blocks.push('icc');
    else if (marker === 0xfe) blocks.push('comment');
    else if (marker >= 0xe1 && marker <= 0xef) blocks.push(`app${marker - 0xe0}`);
    at += 2 + length;
  }
  return blocks;
}

function pngBlocks(bytes: Buffer): string[] {
  const blocks: string[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (!PIXELS_PNG.has(type)) blocks.push(type);
    at += 12 + length;
  }
  return blocks;
}

function webpBlocks(bytes: Buffer): string[] {
  const blocks: string[] = [];
  for (let at = 12; at + 8 <= bytes.length; ) {
    const type = bytes.toString('latin1', at, at + 4);
    const length = bytes.readUInt32LE(at + 4);
    if (!PIXELS_WEBP.has(type)) blocks.push(type.trim());
    at += 8 + length + (length % 2);
  }
  return blocks;
}

/** The names of the blocks that are not pixel data: empty for a clean file. */
export function metadataBlocks(bytes: Buffer): string[] {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpegBlocks(bytes);
  if (bytes.subarray(1, 4).toString('latin1') === 'PNG') return pngBlocks(bytes);
  if (bytes.subarray(8, 12).toString('latin1') === 'WEBP') return webpBlocks(bytes);
  throw new Error('metadataBlocks: not a JPEG, PNG or WebP');
}

/** What libvips itself reads of metadata (a second opinion): present kinds only. */
export async function decodedMetadata(bytes: Buffer): Promise<string[]> {
  const m = await sharp(bytes).metadata();
  const kinds = { exif: m.exif, xmp: m.xmp, iptc: m.iptc, icc: m.icc, comments: m.comments, tifftagPhotoshop: m.tifftagPhotoshop };
  return Object.entries(kinds)
    .filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0))
    .map(([kind]) => kind);
}
