// A fake ReportGenerator for other modules' unit tests (every port has a real and a
// fake adapter): a canned candidate or a canned GenerationError, a call log, an optional delay
// that honours the abort signal.
import { abortableDelay } from './abortable-delay.ts';
import { GenerationError } from './report-generator.ts';
import type { GenerationInput, GenerationOutput, GenerationTokens, ReportGenerator, ReportResult, TokenUsage } from './report-generator.ts';

/** A report the contract accepts (spec 2.3). */
export const SAMPLE_REPORT: ReportResult = Object.freeze({
  title: 'Water leak under the kitchen sink',
  description: 'Water is dripping from the trap under the kitchen sink; the cabinet floor is wet.',
  category: 'plumbing',
  priority: 'high',
  suggestedNextStep: 'Send a plumber to replace the trap seal.',
  tags: ['plumbing', 'leak', 'kitchen'],
  riskFlags: ['water_damage'],
  confidence: 0.82,
}) as ReportResult;

interface FakeReportGeneratorOptions {
  /** Returned as GenerationOutput.candidate (deep-copied per call). Default SAMPLE_REPORT. */
  readonly candidate?: unknown;
  /** Thrown instead of answering. */
  readonly error?: GenerationError | { readonly kind: GenerationError['kind']; readonly reason?: string };
  /** Wait before answering or failing; an abort cuts it short with GenerationError('unavailable', 'aborted'). */
  readonly delayMs?: number;
  readonly generator?: GenerationOutput['generator'];
  readonly model?: string;
  readonly tokens?: GenerationTokens;
  readonly tokenUsage?: TokenUsage | null;
}

export class FakeReportGenerator implements ReportGenerator {
  /** Every call's input, in order. */
  readonly calls: GenerationInput[] = [];
  readonly #options: FakeReportGeneratorOptions;

  constructor(options: FakeReportGeneratorOptions = {}) {
    this.#options = options;
  }

  get callCount(): number {
    return this.calls.length;
  }

  async generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    this.calls.push(input);
    await abortableDelay(this.#options.delayMs ?? 0, signal);
    const error = this.#options.error;
    if (error instanceof GenerationError) throw error;
    if (error !== undefined) throw new GenerationError(error.kind, error.reason ?? 'fake');
    const candidate = 'candidate' in this.#options ? this.#options.candidate : SAMPLE_REPORT;
    return {
      candidate: structuredClone(candidate),
      generator: this.#options.generator ?? 'offline',
      model: this.#options.model ?? 'offline',
      latencyMs: this.#options.delayMs ?? 0,
      tokens: this.#options.tokens ?? { input: 0, output: 0, thinking: 0 },
      tokenUsage: this.#options.tokenUsage ?? null,
    };
  }
}
