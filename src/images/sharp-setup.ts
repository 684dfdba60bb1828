// Process-wide settings of sharp/libvips for the image normalizer (R38). They are
// libvips globals, so they are set once, here, when the normalizer first loads sharp.
import { availableParallelism } from 'node:os';
import type sharpModule from 'sharp';

/**
 * The only decoders libvips may use: the four accepted types (R22), read from memory. Every
 * other loader (SVG, TIFF, HEIF, PDF, UltraHDR, ...) is blocked, so bytes that some other
 * decoder would accept can never reach one, whatever their first bytes say.
 */
const ALLOWED_LOADERS = [
  'VipsForeignLoadJpegBuffer',
  'VipsForeignLoadPngBuffer',
  'VipsForeignLoadNsgifBuffer',
  'VipsForeignLoadWebpBuffer',
] as const;

/**
 * Normalization jobs that run at once: one per core, at most three. Each job holds one of libuv's
 * threads while libvips works. `npm start` sizes that pool at 8 (UV_THREADPOOL_SIZE=8): the three jobs, and room beside them for file access, zlib, crypto and the
 * database driver's own lookups. Image hosts are not resolved on that pool at all (R50,
 * checked-address.ts), so a nameserver that never answers cannot take a thread from anyone.
 */
export function defaultNormalizerConcurrency(): number {
  return Math.max(1, Math.min(availableParallelism(), 3));
}

let configuredThreads: number | undefined;

/**
 * - no operation cache: every image is decoded once, a cache would only hold memory (50 MiB by default);
 * - libvips threads per job: the cores shared by the jobs that run at once (1 each on 2 cores),
 *   so that all jobs together use the machine's cores and not more;
 * - every loader blocked but ALLOWED_LOADERS.
 */
export function configureSharp(sharp: typeof sharpModule, jobs: number): void {
  const threads = Math.max(1, Math.floor(availableParallelism() / jobs));
  if (configuredThreads === threads) return;
  sharp.cache(false);
  sharp.concurrency(threads);
  sharp.block({ operation: ['VipsForeignLoad'] });
  sharp.unblock({ operation: [...ALLOWED_LOADERS] });
  configuredThreads = threads;
}
