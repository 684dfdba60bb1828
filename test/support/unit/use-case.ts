// The create-report use case on in-memory fakes (unit tier): no database, no network,
// a few milliseconds per test. Each fake can be told to fail the way its real adapter does, and
// the step runner records the order in which the steps ran.
import { readable, unreadable, type Fact } from '../../../src/accounts/api-key-directory.ts';
import type { Principal } from '../../../src/auth/principal.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { OfflineReportGenerator } from '../../../src/generation/offline-generator.ts';
import type { Mode } from '../../../src/accounts/mode.ts';
import { createResultValidator } from '../../../src/generation/result-schema.ts';
import { loadContract } from '../../../src/http/contract.ts';
import { PersistenceFailure } from '../../../src/db/persistence-failure.ts';
import { FakeIdempotencyStore } from '../../../src/idempotency/fake-idempotency-store.ts';
import { ByteBudget } from '../../../src/images/byte-budget.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { FakeImageNormalizer } from '../../../src/images/fake-image-normalizer.ts';
import { ImageBoundary, type ImageBoundaryOptions } from '../../../src/images/image-boundary.ts';
import type { ImageNormalizer } from '../../../src/images/image-normalizer.ts';
import { FakeRateLimiter } from '../../../src/rate-limit/fake-rate-limiter.ts';
import { CreateEvidenceReport, type CreateEvidenceReportOutcome } from '../../../src/reports/create-evidence-report.ts';
import { FakeReportRepository } from '../../../src/reports/fake-report-repository.ts';
import type { CreateEvidenceReportRequest } from '../../../src/reports/report-request.ts';
import type { StepLabel } from '../../../src/observability/step-labels.ts';
import { noopTelemetry } from '../../../src/observability/telemetry.ts';
import { FixedClock } from '../../../src/shared/clock.ts';
import { monthPeriod } from '../../../src/usage/period.ts';
import type { PlanUsage } from '../../../src/usage/plan-usage.ts';
import type { PlanUsageReader } from '../../../src/usage/plan-usage-reader.ts';

export const NOW = '2026-11-23T10:00:00.000Z';

export const TEXT_REQUEST: CreateEvidenceReportRequest = {
  context: 'property_maintenance',
  evidence: { text: 'Water is dripping from the trap under the kitchen sink.' },
};

export const IMAGE_REQUEST: CreateEvidenceReportRequest = {
  context: 'damage_report',
  evidence: { text: 'A cracked window.', images: [{ url: 'https://img.example/window.png' }] },
};

export interface PrincipalFacts {
  mode?: Mode;
  entitled?: Fact<boolean>;
  planUsage?: Fact<PlanUsage | null>;
}

export function principal(facts: PrincipalFacts = {}): Principal {
  return {
    customerId: 'customer-1',
    apiKeyId: 'key-1',
    mode: facts.mode ?? 'live',
    period: monthPeriod(new Date(NOW)),
    at: new Date(NOW),
    entitled: facts.entitled ?? readable(true),
    planUsage: facts.planUsage ?? readable({ limit: 1000, usageVisible: true, used: 0 }),
  };
}

export { readable, unreadable };

const validateResult = createResultValidator((await loadContract()).document);

export class UseCaseHarness {
  readonly clock = new FixedClock(NOW);
  readonly rateLimiter = new FakeRateLimiter();
  readonly idempotency = new FakeIdempotencyStore();
  readonly reports = new FakeReportRepository(this.idempotency);
  imageFetcher = new FakeImageFetcher();
  /** The real image boundary (R38, R39) over the fake fetcher and this normalizer. */
  normalizer: ImageNormalizer = new FakeImageNormalizer();
  budget = new ByteBudget(64 * 1024 * 1024);
  generatorCopyBytes: ImageBoundaryOptions['generatorCopyBytes'];
  generator = new FakeReportGenerator();
  /** R53: what test mode generates with (the offline generator in the service). */
  testGenerator = new OfflineReportGenerator();
  /** The steps that ran, in order, by their operator-interface labels. */
  readonly steps: StepLabel[] = [];
  /** Runs before each step (a test moves the clock between steps with it). */
  beforeStep: (label: StepLabel) => void = () => {};
  /**
   * What step 6 reads when step 1's figure is no longer fresh (spec section 8): the month's plan
   * and usage, null without a plan, or 'unavailable' (the read fails as an unreachable database's
   * would). Undefined: the test expects no such read, and one fails the test.
   */
  usageNow: PlanUsage | null | 'unavailable' | undefined;
  /** Step 6's reads of the month's usage, with what each asked for. */
  readonly usageReads: Parameters<PlanUsageReader['planUsage']>[] = [];

  useCase(): CreateEvidenceReport {
    return new CreateEvidenceReport({
      clock: this.clock,
      limits: { textMaxChars: 20_000, imageMaxCount: 8, urlMaxChars: 2_048, languageMaxChars: 100 },
      rateLimiter: this.rateLimiter,
      idempotency: this.idempotency,
      reports: this.reports,
      planUsage: {
        planUsage: async (...asked) => {
          this.usageReads.push(asked);
          if (this.usageNow === 'unavailable') throw new PersistenceFailure('unavailable');
          if (this.usageNow === undefined) throw new Error('step 6 read the usage again, and the test did not expect it');
          return this.usageNow;
        },
      },
      images: new ImageBoundary({
        fetcher: this.imageFetcher,
        normalizer: this.normalizer,
        budget: this.budget,
        generatorCopyBytes: this.generatorCopyBytes,
      }),
      generator: { generate: (...args) => this.generator.generate(...args) },
      testGenerator: { generate: (...args) => this.testGenerator.generate(...args) },
      validateResult,
      telemetry: { ...noopTelemetry, step: this.#step },
    });
  }

  /** The step runner: records the step, then runs it. */
  readonly #step = async <T>(label: StepLabel, run: () => Promise<T> | T): Promise<T> => {
    this.steps.push(label);
    this.beforeStep(label);
    return run();
  };

  /** Step 2's application part as the HTTP edge runs it (inside its step 2), then steps 3 to 11. */
  async create(
    options: { principal?: Principal; request?: CreateEvidenceReportRequest; idempotencyKey?: string } = {},
  ): Promise<CreateEvidenceReportOutcome> {
    const useCase = this.useCase();
    const input = {
      // Step 1 happens now, on the harness's clock: its instant and month (R17).
      principal: { ...(options.principal ?? principal()), at: this.clock.now(), period: monthPeriod(this.clock.now()) },
      requestId: 'request-1',
      request: options.request ?? TEXT_REQUEST,
      idempotencyKey: options.idempotencyKey,
      signal: new AbortController().signal,
    };
    await this.#step('2_validate', () => useCase.validate(input));
    return useCase.execute(input);
  }
}

/** The ApiError code a promise rejects with. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? `not an ApiError: ${String(error)}`;
  }
  return 'no error';
}
