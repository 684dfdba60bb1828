// The production ImageNormalizer (R38): libvips through sharp. Decoding and encoding
// run on libuv's threads (sharp's calls are asynchronous), never on the event loop, and they go
// through a bounded WorkQueue: past it, 503 `normalizer_busy` at once.
//
// What an accepted image becomes: its first frame (pages: 1), rotated by its EXIF orientation,
// converted to sRGB (CMYK, 16-bit and grey inputs included), scaled down (never up) to fit
// maxDimension on its long side, and re-encoded: JPEG, or PNG (WebP for a WebP source) when it
// has transparency. Nothing of the original's metadata is written: sharp writes none unless
// asked (no keepMetadata/withMetadata here), so EXIF with GPS, XMP, IPTC, ICC and comments go.
// The header is read first, alone: the type and the pixel count are checked before any decoding,
// and the decoded frame's memory is reserved on the request's byte budget (R39) before decoding;
// a frame that could not fit even an empty budget is refused for good (R23 oversize).
//
// sharp (libvips, its thread pool and allocations: about 50 MiB of resident memory under load)
// is loaded with the first image, so a service that gets text evidence only never pays for it.
import type { Metadata, Sharp } from 'sharp';
import type sharpModule from 'sharp';
import { ImageRefusal, rejected, unavailable } from './image-fetch-error.ts';
import type { ImageMimeType } from './image-fetcher.ts';
import type { ImageNormalizer, Normalization } from './image-normalizer.ts';
import { isSrgbProfile } from './icc-profile.ts';
import { jpegFrame, jpegHasEnd, jpegScanCount } from './image-content.ts';
import { configureSharp, defaultNormalizerConcurrency } from './sharp-setup.ts';
import { WorkQueue } from './work-queue.ts';
import type { Admission } from './work-queue.ts';
import type { BudgetLease } from './byte-budget.ts';

export interface SharpImageNormalizerOptions {
  /** IMAGE_MAX_DIMENSION: the long side of a normalized image, at most (default 2048). */
  readonly maxDimension: number;
  /** IMAGE_MAX_PIXELS: an original over this many pixels is a bomb, refused from its header. */
  readonly maxPixels: number;
  /** Jobs at once (default: one per core, at most 3; see sharp-setup.ts). */
  readonly concurrency?: number;
  /**
   * Jobs admitted beyond those running (default 16 per running job: eight requests of four
   * images on 2 cores). With the admission's estimate of the wait (work-queue.ts) and the byte
   * budget, this bound only decides before the first job's run time is known.
   */
  readonly maxWaiting?: number;
  /**
   * IMAGE_MAX_COUNT: the places of the queue are never fewer, or a request of that many images
   * could never be admitted (R38's admission takes a request's places at once) and would be 503
   * `normalizer_busy` for ever, on an idle instance too.
   */
  readonly imagesPerRequest?: number;
  /** How long a job may wait for its turn (default 5 s). */
  readonly maxWaitMs?: number;
  /** How long one job may run (default 10 s); past it, 503 `normalizer_timeout`. */
  readonly timeoutSeconds?: number;
}

const FORMATS: Readonly<Record<string, ImageMimeType>> = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };

// libvips' and its decoders' words for bytes that end before the image does.
const TRUNCATED = /premature end|truncat|unexpected end|end of (?:file|data|stream)|not enough (?:data|image data)|libpng read error/i;

// Bytes per sample of libvips' band formats.
const SAMPLE_BYTES: Readonly<Record<string, number>> = { uchar: 1, char: 1, ushort: 2, short: 2, uint: 4, int: 4, float: 4, complex: 8, double: 8, dpcomplex: 16 };

/**
 * The most scans a JPEG may have (R38: a bomb is 422 without decoding it). Encoders write one
 * (baseline) or about ten (libjpeg's and mozjpeg's progressive scripts, 10-11); NVIDIA DALI
 * refuses above 500. At about 3 ms a scan on a 36-megapixel frame, 100 scans cost 0.3 s.
 */
const MAX_JPEG_SCANS = 100;

/** The memory of the decoded frame: width x height x channels x bytes per sample, from the header. */
function decodedBytes(header: Pick<Metadata, 'channels' | 'depth'>, size: { width: number; height: number }): number {
  const channels = header.channels ?? 4;
  const sampleBytes = SAMPLE_BYTES[header.depth ?? ''] ?? 1;
  return size.width * size.height * channels * sampleBytes;
}

/**
 * The DCT coefficients libjpeg holds for a progressive JPEG: it decodes one in buffered mode,
 * keeping every coefficient of the whole image (2 bytes a sample, each component at its own
 * sampling, in whole MCUs) beside the frame. Measured with sharp on a 6000 x 6000 4:4:4 JPEG: the
 * process peaked 258 MB above its start when it was progressive, 53 MB when it was baseline
 * (libvips then shrinks on load and streams). A baseline JPEG holds none. The sampling is read
 * from the frame header; without one, every component at full size is assumed.
 */
function coefficientBytes(bytes: Buffer, header: Pick<Metadata, 'format' | 'isProgressive' | 'channels'>, size: { width: number; height: number }): number {
  if (header.format !== 'jpeg' || header.isProgressive !== true) return 0;
  const frame = jpegFrame(bytes) ?? { samplesPerPixel: header.channels ?? 4, mcuWidth: 32, mcuHeight: 32 };
  const width = Math.ceil(size.width / frame.mcuWidth) * frame.mcuWidth;
  const height = Math.ceil(size.height / frame.mcuHeight) * frame.mcuHeight;
  return Math.ceil(width * height * frame.samplesPerPixel * 2);
}

/** True when every pixel of 8-bit RGBA samples has full alpha. */
function opaque(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/** A decoder's failure as a refusal with a fixed reason; the library's message goes no further. */
export function decodeRefusal(error: unknown): ImageRefusal {
  if (error instanceof ImageRefusal) return error;
  const message = error instanceof Error ? error.message : '';
  if (/pixel limit/i.test(message)) return rejected('too_many_pixels');
  if (/^timeout/i.test(message)) return unavailable('normalizer_timeout');
  if (/out of memory|memory allocation/i.test(message)) return unavailable('unexpected');
  if (TRUNCATED.test(message)) return rejected('truncated');
  return rejected('undecodable');
}

export class SharpImageNormalizer implements ImageNormalizer {
  readonly #maxDimension: number;
  readonly #maxPixels: number;
  readonly #timeoutSeconds: number;
  readonly #queue: WorkQueue;
  readonly #concurrency: number;
  #sharp: Promise<typeof sharpModule> | undefined;

  constructor(options: SharpImageNormalizerOptions) {
    this.#maxDimension = options.maxDimension;
    this.#maxPixels = options.maxPixels;
    this.#timeoutSeconds = options.timeoutSeconds ?? 10;
    const concurrency = options.concurrency ?? defaultNormalizerConcurrency();
    this.#concurrency = concurrency;
    const maxWaiting = Math.max(options.maxWaiting ?? 16 * concurrency, (options.imagesPerRequest ?? 0) - concurrency);
    // One customer holds at most half the places (always room for one request of its own), so
    // slow downloads of one customer cannot shut the others out (work-queue.ts).
    const maxPerOwner = Math.max(options.imagesPerRequest ?? 1, Math.ceil((concurrency + maxWaiting) / 2));
    this.#queue = new WorkQueue({ concurrency, maxWaiting, maxWaitMs: options.maxWaitMs ?? 5_000, maxPerOwner });
  }

  /** sharp, loaded and configured once, by the first job. */
  #load(): Promise<typeof sharpModule> {
    this.#sharp ??= import('sharp').then(({ default: sharp }) => {
      configureSharp(sharp, this.#concurrency);
      return sharp;
    });
    return this.#sharp;
  }

  /** Jobs running, waiting, and places taken (admitted) now: for tests and the operator's metrics. */
  get load(): { readonly running: number; readonly waiting: number; readonly admitted: number } {
    return { running: this.#queue.running, waiting: this.#queue.waiting, admitted: this.#queue.admitted };
  }

  admit(count: number, owner?: string): Admission | undefined {
    return this.#queue.admit(count, owner);
  }

  normalize(bytes: Buffer, mimeType: ImageMimeType, signal?: AbortSignal, admission?: Admission, lease?: BudgetLease): Promise<Normalization> {
    return this.#queue.run(() => this.#normalize(bytes, mimeType, lease, signal), signal, admission);
  }

  async #normalize(bytes: Buffer, mimeType: ImageMimeType, lease: BudgetLease | undefined, signal: AbortSignal | undefined): Promise<Normalization> {
    const sharp = await this.#load();
    let reserved = 0;
    try {
      // limitInputPixels refuses a bomb from its header, before any pixel is decoded; failOn
      // 'error' refuses corrupt and truncated data (libjpeg's mere warnings pass, as phones need).
      const options = { limitInputPixels: this.#maxPixels, failOn: 'error', pages: 1, animated: false } as const;
      const header = await sharp(bytes, options).metadata();
      const original = this.#check(header, mimeType);
      if (mimeType === 'image/jpeg' && !jpegHasEnd(bytes)) throw rejected('truncated');
      if (mimeType === 'image/jpeg' && jpegScanCount(bytes, MAX_JPEG_SCANS) > MAX_JPEG_SCANS) throw rejected('too_many_scans');
      // R39: the decoded frame is image data this request holds; a 40-megapixel RGBA frame is
      // 160 MB that the bytes on the wire never showed. So are a progressive JPEG's coefficients.
      // Reserved before decoding, or refused.
      const decoded = decodedBytes(header, original) + coefficientBytes(bytes, header, original);
      if (lease !== undefined) {
        // The original stays on the lease until its normalized copy takes its place: a frame that
        // with it is larger than the whole budget could never be reserved, however long the client
        // waits, so it is oversize (R23: 422), not a 503 to retry for ever.
        if (decoded + bytes.length > lease.limit) throw rejected('frame_too_large');
        // It would fit an empty budget, but other requests' images hold it now: unavailable
        // (R23: 503). The request's own images at work are waited for (BudgetLease.reserveWaiting).
        let room: boolean;
        try {
          room = await lease.reserveFrame(decoded, signal);
        } catch {
          throw unavailable('aborted');
        }
        if (!room) throw unavailable('budget');
        reserved = decoded;
      }
      // An sRGB profile is skipped: converting to sRGB would change nothing and cost as much CPU
      // as the decoding (icc-profile.ts). Every other profile is applied by toColourspace below.
      const image = sharp(bytes, { ...options, ignoreIcc: header.icc !== undefined && isSrgbProfile(header.icc) });
      const upright = image
        .rotate()
        .resize({ width: this.#maxDimension, height: this.#maxDimension, fit: 'inside', withoutEnlargement: true })
        .toColourspace('srgb');
      const encoded = (header.hasAlpha === true ? await this.#encodeWithAlpha(sharp, upright, mimeType) : this.#encode(upright, undefined)).timeout({
        seconds: this.#timeoutSeconds,
      });
      const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
      const outType = FORMATS[info.format];
      if (outType === undefined) throw unavailable('unexpected');
      return { original, normalized: { bytes: data, mimeType: outType, sizeBytes: data.length, width: info.width, height: info.height } };
    } catch (error) {
      throw decodeRefusal(error);
    } finally {
      // The decoded pixels are gone once encoded: what stays is the normalized copy (R39).
      if (reserved > 0) lease?.releaseFrame(reserved);
    }
  }

  /** The header agrees with the sniffed type and declares at most maxPixels pixels. */
  #check(header: Metadata, mimeType: ImageMimeType): { width: number; height: number } {
    if (header.format === undefined || FORMATS[header.format] !== mimeType) throw rejected('content_mismatch');
    const { width, height } = header;
    if (!(width > 0 && height > 0)) throw rejected('undecodable');
    if (width * height > this.#maxPixels) throw rejected('too_many_pixels');
    return { width, height };
  }

  /**
   * An image with an alpha channel, scaled and upright, as R38 wants it: PNG or WebP only where it
   * has transparency. Many screenshots and exports carry an alpha channel that is opaque
   * everywhere; such an image is a JPEG like any photo (a 2048 x 1536 one: 193 KB against 5.6 MB
   * as PNG, bytes the budget and Gemini's inline request both pay for). The scaled pixels are
   * read once (at most IMAGE_MAX_DIMENSION squared, within the frame reserved) and looked at.
   */
  async #encodeWithAlpha(sharp: typeof sharpModule, upright: Sharp, mimeType: ImageMimeType): Promise<Sharp> {
    const { data, info } = await upright.ensureAlpha().raw({ depth: 'uchar' }).timeout({ seconds: this.#timeoutSeconds }).toBuffer({ resolveWithObject: true });
    const raw = sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } });
    return opaque(data) ? this.#encode(raw.removeAlpha(), undefined) : this.#encode(raw, mimeType);
  }

  /** JPEG without transparency; with it, WebP for a WebP source and PNG otherwise (lossless stays lossless). */
  #encode(pipeline: Sharp, alphaSource: ImageMimeType | undefined): Sharp {
    if (alphaSource === undefined) return pipeline.jpeg({ quality: 80 });
    if (alphaSource === 'image/webp') return pipeline.webp({ quality: 80, alphaQuality: 100 });
    return pipeline.png({ compressionLevel: 6 });
  }
}
