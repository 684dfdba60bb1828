// Step 7: image evidence through the secure boundary (spec 4.1, rulings R22, R23). Bytes, never
// URLs, go on to the generator. details carry the image index and nothing about the network.
import { ApiError } from '../../errors/catalogue.ts';
import { ImageFetchError } from '../../images/image-fetch-error.ts';
import type { FetchedImage, ImageFetcher } from '../../images/image-fetcher.ts';
import type { Telemetry } from '../../observability/telemetry.ts';
import type { CreateEvidenceReportRequest } from '../report-request.ts';

/**
 * The fetched images and the one hold of their bytes on the process-wide budget (issue 3): the
 * owner calls release() once generation is done, whatever happened (a second call does nothing).
 */
export interface HeldImages {
  readonly images: readonly FetchedImage[];
  release(): void;
}

export async function fetchImages(
  fetcher: ImageFetcher,
  request: CreateEvidenceReportRequest,
  signal: AbortSignal,
  telemetry: Pick<Telemetry, 'imageFetch'>,
): Promise<HeldImages> {
  const urls = (request.evidence.images ?? []).map((image) => image.url);
  if (urls.length === 0) return { images: [], release: () => {} };
  const held = Promise.withResolvers<void>();
  try {
    // Counted by outcome and reason, and one client span without URL or host (R40, R41).
    const images = await telemetry.imageFetch(urls.length, () => fetcher.fetch(urls, signal, held.promise));
    return { images, release: () => held.resolve() };
  } catch (cause) {
    held.resolve();
    if (cause instanceof ImageFetchError) {
      const code = cause.kind === 'rejected' ? 'remote_evidence_image_rejected' : 'remote_evidence_image_unavailable';
      throw new ApiError(code, { details: { imageIndex: cause.imageIndex }, cause });
    }
    throw new ApiError('remote_evidence_image_unavailable', { cause });
  }
}
