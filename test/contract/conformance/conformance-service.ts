// The real service (production composition root) as the conformance run and the SDK test
// drive it from outside: the offline generator, except for evidence text carrying a marker
// that makes generation fail in one of the ways R24 sorts (or take long enough to see
// idempotency_in_progress), and a fake image fetcher (no network) that rejects or cannot
// retrieve two well-known URLs (R23). Everything else is the production wiring.
import { FakeReportGenerator, SAMPLE_REPORT } from '../../../src/generation/fake-report-generator.ts';
import { OfflineReportGenerator } from '../../../src/generation/offline-generator.ts';
import type { GenerationInput, GenerationOutput, ReportGenerator } from '../../../src/generation/report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { startTestService, type TestService } from '../../support/service.ts';

export const IMAGE_URL = 'https://images.example.org/door-front.jpg';
export const REJECTED_IMAGE_URL = 'https://images.example.org/rejected.png';
export const UNAVAILABLE_IMAGE_URL = 'https://images.example.org/unavailable.png';

/** Evidence-text markers that pick a generator behaviour. */
export const GENERATOR_MARKERS = {
  invalid: '[generator:invalid]',
  failed: '[generator:failed]',
  unavailable: '[generator:unavailable]',
  slow: '[generator:slow]',
} as const;

export const SLOW_GENERATION_MS = 1_500;

class MarkerGenerator implements ReportGenerator {
  readonly #offline = new OfflineReportGenerator();
  readonly #byMarker: [string, FakeReportGenerator][] = [
    [GENERATOR_MARKERS.invalid, new FakeReportGenerator({ candidate: { ...SAMPLE_REPORT, confidence: 7 } })],
    [GENERATOR_MARKERS.failed, new FakeReportGenerator({ error: { kind: 'failed' } })],
    [GENERATOR_MARKERS.unavailable, new FakeReportGenerator({ error: { kind: 'unavailable' } })],
    [GENERATOR_MARKERS.slow, new FakeReportGenerator({ delayMs: SLOW_GENERATION_MS })],
  ];

  /** Generations started so far (a test waits for one to be under way). */
  started = 0;

  generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    this.started += 1;
    const chosen = this.#byMarker.find(([marker]) => input.text?.includes(marker));
    return (chosen?.[1] ?? this.#offline).generate(input, signal);
  }
}

export interface ConformanceService extends TestService {
  readonly generator: MarkerGenerator;
}

export async function startConformanceService(env: Record<string, string> = {}): Promise<ConformanceService> {
  const generator = new MarkerGenerator();
  const imageFetcher = new FakeImageFetcher({
    failures: {
      [REJECTED_IMAGE_URL]: { kind: 'rejected', reason: 'content_mismatch' },
      [UNAVAILABLE_IMAGE_URL]: { kind: 'unavailable', reason: 'timeout' },
    },
  });
  const service = await startTestService(env, { generator, imageFetcher });
  return Object.assign(service, { generator });
}
