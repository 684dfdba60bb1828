// Step 7: image evidence through the secure boundary (spec 4.1, rulings R22, R23). Bytes, never
// URLs, go on to the generator. details carry the image index and nothing about the network.
import { ApiError } from '../../errors/catalogue.ts';
import { ImageFetchError } from '../../images/image-fetch-error.ts';
import type { ImageFetcher } from '../../images/image-fetcher.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';
import { noopTelemetry, type Telemetry } from '../../observability/telemetry.ts';

export function fetchImages(fetcher: ImageFetcher, telemetry: Telemetry = noopTelemetry): Stage {
  return {
    step: '7. fetch remote images',
    async run(state: PipelineState) {
      const urls = (state.request.evidence.images ?? []).map((image) => image.url);
      if (urls.length === 0) {
        state.images = [];
        return;
      }
      // The bytes stay counted against the process-wide budget until generation is done.
      const held = Promise.withResolvers<void>();
      state.releaseImages = () => held.resolve();
      try {
        // Counted by outcome and reason, and one client span without URL or host (R40, R41).
        state.images = await telemetry.imageFetch(urls.length, () => fetcher.fetch(urls, state.signal, held.promise));
      } catch (cause) {
        if (cause instanceof ImageFetchError) {
          const code = cause.kind === 'rejected' ? 'remote_evidence_image_rejected' : 'remote_evidence_image_unavailable';
          throw new ApiError(code, { details: { imageIndex: cause.imageIndex }, cause });
        }
        throw new ApiError('remote_evidence_image_unavailable', { cause });
      }
    },
  };
}
