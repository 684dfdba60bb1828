// The image boundary as the service composes it (R22, R38, R39): the hardened HTTP fetcher and
// the sharp normalizer, configured from the environment, on the process's one byte budget, with
// the generator's own copies of each image reserved on it. One place, so that `npm run eval`
// (R46) fetches and normalizes its images exactly as a request to the service does.
import type { Config } from '../config.ts';
import type { ReportGenerator } from '../generation/report-generator.ts';
import type { ByteBudget } from './byte-budget.ts';
import { HttpImageFetcher } from './http-image-fetcher.ts';
import { ImageBoundary } from './image-boundary.ts';
import type { ImageFetcher } from './image-fetcher.ts';
import type { ImageNormalizer } from './image-normalizer.ts';
import { SharpImageNormalizer } from './sharp-normalizer.ts';

type ImageBoundaryConfig = Pick<
  Config,
  | 'imageMaxCount'
  | 'imageMaxBytes'
  | 'imageFetchTimeoutMs'
  | 'imageMaxRedirects'
  | 'imageFetchConcurrency'
  | 'remoteImageAllowCidrs'
  | 'imageAllowedPorts'
  | 'imageMaxDimension'
  | 'imageMaxPixels'
>;

interface ImageBoundaryParts {
  /** IMAGE_BYTES_IN_FLIGHT_MAX, one per process. */
  readonly budget: ByteBudget;
  readonly generator: Pick<ReportGenerator, 'imageCopyBytes'>;
  /** Test seams; production leaves both unset. */
  readonly fetcher?: ImageFetcher;
  readonly normalizer?: ImageNormalizer;
}

export function composeImageBoundary(config: ImageBoundaryConfig, parts: ImageBoundaryParts): ImageBoundary {
  const { budget, generator } = parts;
  // One normalizer queue (R38) on the one budget of every image byte the process holds (R39).
  return new ImageBoundary({
    fetcher:
      parts.fetcher ??
      new HttpImageFetcher({
        maxBytes: config.imageMaxBytes,
        timeoutMs: config.imageFetchTimeoutMs,
        maxRedirects: config.imageMaxRedirects,
        concurrency: config.imageFetchConcurrency,
        budget,
        allowCidrs: config.remoteImageAllowCidrs,
        allowedPorts: config.imageAllowedPorts,
      }),
    normalizer: parts.normalizer ?? new SharpImageNormalizer({ maxDimension: config.imageMaxDimension, maxPixels: config.imageMaxPixels, imagesPerRequest: config.imageMaxCount }),
    budget,
    generatorCopyBytes: (image) => generator.imageCopyBytes?.(image) ?? 0,
  });
}
