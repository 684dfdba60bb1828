// Step 7: image evidence through the secure boundary (spec 4.1, rulings R22, R23, R38). Fetched,
// decoded and normalized bytes, never URLs or originals, go on to the generator. details carry
// the image index and nothing about the network or the decoder.
import { ApiError } from '../../errors/catalogue.ts';
import type { ImageBoundary } from '../../images/image-boundary.ts';
import { ImageFetchError } from '../../images/image-fetch-error.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

export function fetchImages(boundary: Pick<ImageBoundary, 'acquire'>): Stage {
  return {
    step: '7. fetch remote images',
    async run(state: PipelineState) {
      const urls = (state.request.evidence.images ?? []).map((image) => image.url);
      try {
        // The set holds the bytes and their budget until step 8 disposes it (R39).
        state.images = await boundary.acquire(urls, state.signal);
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
