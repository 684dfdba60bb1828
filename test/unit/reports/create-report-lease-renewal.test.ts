// Unit tier: the idempotency claim outlives the generation (R14). The lease is sized for one
// image timeout, but the images of one request may take several; before step 8 a claim with
// less of its lease left than one generation needs (the fake store's 60 s of its 65 s lease) is
// renewed, so a retry cannot take the key over mid-generation and pay for a second generation.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import type { GenerationInput, GenerationOutput } from '../../../src/generation/report-generator.ts';
import type { ImageMimeType } from '../../../src/images/image-fetcher.ts';
import { FakeImageNormalizer } from '../../../src/images/fake-image-normalizer.ts';
import type { CreateEvidenceReportRequest } from '../../../src/reports/report-request.ts';
import { codeOf, IMAGE_REQUEST, UseCaseHarness } from '../../support/unit/use-case.ts';

const LEASE_MS = 65_000; // the fake store's lease: R14's default (30 s + 5 s + 30 s)

const TWO_IMAGES: CreateEvidenceReportRequest = {
  context: 'damage_report',
  evidence: { text: 'A cracked window.', images: [{ url: 'https://img.example/a.png' }, { url: 'https://img.example/b.png' }] },
};

/** A normalizer that takes `ms` of the harness's clock per image, and runs `during` once, at the first. */
function slowNormalizer(h: UseCaseHarness, ms: number, during?: () => Promise<void>): FakeImageNormalizer {
  let ran = false;
  return new (class extends FakeImageNormalizer {
    override async normalize(bytes: Buffer, mimeType: ImageMimeType) {
      h.clock.advance(ms);
      if (during && !ran) {
        ran = true;
        await during();
      }
      return super.normalize(bytes, mimeType);
    }
  })();
}

/** A generator that runs `during` once, at its first call, before answering. */
function generatorRunning(during: () => Promise<void>): FakeReportGenerator {
  let ran = false;
  return new (class extends FakeReportGenerator {
    override async generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
      if (!ran) {
        ran = true;
        await during();
      }
      return super.generate(input, signal);
    }
  })();
}

describe('create report, unit tier: the claim outlives the generation (R14)', () => {
  it('images that took most of the lease: the claim is renewed, and a retry past the first lease is 409 in progress, not a second generation', async () => {
    const h = new UseCaseHarness();
    h.normalizer = slowNormalizer(h, 20_000); // 40 s of images: 25 s of the lease left
    let retry = '';
    h.generator = generatorRunning(async () => {
      h.clock.advance(LEASE_MS - 40_000 + 1); // the first lease has passed
      retry = await codeOf(h.create({ request: TWO_IMAGES, idempotencyKey: 'slow-images' }));
    });
    const original = await h.create({ request: TWO_IMAGES, idempotencyKey: 'slow-images' });
    expect(original.replayed).to.equal(false);
    expect(retry).to.equal('idempotency_in_progress');
    expect(h.generator.callCount).to.equal(1);
    expect(h.reports.records).to.have.length(1);
    expect(h.idempotency.renewals).to.equal(1);
    expect(h.idempotency.inProgress()).to.equal(0);
  });

  it('a claim with a generation and R14 margin left is not renewed: no extra write on the common path', async () => {
    const h = new UseCaseHarness();
    h.normalizer = slowNormalizer(h, 4_000);
    await h.create({ request: IMAGE_REQUEST, idempotencyKey: 'quick-image' });
    await h.create({ idempotencyKey: 'text-only' });
    expect(h.idempotency.renewals).to.equal(0);
    expect(h.reports.records).to.have.length(2);
  });

  it('a claim taken over while the images took longer than the lease: 503 idempotency_unavailable before the generator is asked', async () => {
    const h = new UseCaseHarness();
    let retry: string | undefined;
    h.normalizer = slowNormalizer(h, LEASE_MS + 1, async () => {
      // The first lease has passed during the first image: a retry takes the key over and completes.
      const outcome = await h.create({ request: TWO_IMAGES, idempotencyKey: 'taken-over' });
      retry = outcome.replayed ? 'replayed' : 'created';
    });
    expect(await codeOf(h.create({ request: TWO_IMAGES, idempotencyKey: 'taken-over' }))).to.equal('idempotency_unavailable');
    expect(retry).to.equal('created');
    expect(h.generator.callCount).to.equal(1);
    expect(h.reports.records).to.have.length(1);
  });

  it('a renewal that cannot be made is 503 idempotency_unavailable: nothing generated, the key given back', async () => {
    const h = new UseCaseHarness();
    h.normalizer = slowNormalizer(h, 20_000, async () => {
      h.idempotency.unavailable = true;
    });
    expect(await codeOf(h.create({ request: TWO_IMAGES, idempotencyKey: 'store-down' }))).to.equal('idempotency_unavailable');
    expect(h.generator.callCount).to.equal(0);
    expect(h.idempotency.released.map((claim) => claim.key)).to.deep.equal(['store-down']);
    expect(h.reports.records).to.have.length(0);
  });
});
