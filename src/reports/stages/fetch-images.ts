// Step 7: image evidence through the secure boundary (spec 4.1, rulings R22, R23, R38). Fetched,
// decoded and normalized bytes, never URLs or originals, go on to the generator. details carry
// the image index and nothing about the network or the decoder.
import { ApiError } from '../../errors/catalogue.ts';
import type { ImageBoundary } from '../../images/image-boundary.ts';
import { ImageFetchError } from '../../images/image-fetch-error.ts';
import type { ImageSet } from '../../images/image-set.ts';
import type { Telemetry } from '../../observability/telemetry.ts';
import type { CreateEvidenceReportRequest } from '../report-request.ts';

/** The request's images as one ImageSet: the caller owns it and disposes it after step 8 (R39). */
export async function fetchImages(
  boundary: Pick<ImageBoundary, 'acquire'>,
  request: CreateEvidenceReportRequest,
  signal: AbortSignal,
  telemetry: Pick<Telemetry, 'imageFetch'>,
  /** The customer: its images hold at most its share of the normalization queue (R38). */
  customerId: string,
): Promise<ImageSet> {
  const urls = (request.evidence.images ?? []).map((image) => image.url);
  try {
    // Counted by outcome and reason, and one client span without URL or host (R40, R41).
    return await telemetry.imageFetch(urls.length, () => boundary.acquire(urls, signal, customerId));
  } catch (cause) {
    if (cause instanceof ImageFetchError) {
      const code = cause.kind === 'rejected' ? 'remote_evidence_image_rejected' : 'remote_evidence_image_unavailable';
      throw new ApiError(code, { details: { imageIndex: cause.imageIndex }, cause });
    }
    throw new ApiError('remote_evidence_image_unavailable', { cause });
  }
}
