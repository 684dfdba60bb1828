// OFFLINE_GENERATOR_DELAY_MS (bench-only): the offline generator waits before answering, and a
// caller's abort cuts the wait short (R25; the pipeline's time bounds hold in every mode).
import { expect } from 'chai';
import { OfflineReportGenerator } from '../../../src/generation/offline-generator.ts';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { input } from '../../support/generation/helpers.ts';

describe('offline generator delay and abort (R25, OFFLINE_GENERATOR_DELAY_MS)', () => {
  it('waits delayMs before answering (R25)', async () => {
    const started = performance.now();
    const output = await new OfflineReportGenerator({ delayMs: 150 }).generate(input());
    expect(performance.now() - started).to.be.at.least(145);
    expect(output.latencyMs).to.be.at.least(145);
  });

  it('stops waiting when the caller aborts, with GenerationError unavailable/aborted (R25)', async () => {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    const error = await new OfflineReportGenerator({ delayMs: 5_000 }).generate(input(), controller.signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(GenerationError);
    expect(error).to.include({ kind: 'unavailable', reason: 'aborted' });
    expect(performance.now() - started).to.be.below(1_000);
  });

  it('does not start when the signal is already aborted (R25)', async () => {
    const error = await new OfflineReportGenerator().generate(input(), AbortSignal.abort()).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'aborted' });
  });
});
