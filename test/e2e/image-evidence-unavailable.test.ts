// Image hosts that cannot currently serve (spec 4.1 remote image rule 4, R22, R23): 500, 503,
// 429 and a slow drip held past IMAGE_FETCH_TIMEOUT_MS give 503 remote_evidence_image_unavailable
// with details {imageIndex} only; no report, no unit, no generator call, nothing internal said.
import { expect } from 'chai';
import { useService } from '../support/use-service.ts';
import { geminiEnv } from '../support/e2e/gemini-service.ts';
import { startImageRig, type ImageRig } from '../support/e2e/image-rig.ts';
import { expectImageFailure } from '../support/e2e/image-failure.ts';

const FETCH_TIMEOUT_MS = 800;

describe('image hosts that cannot serve now give 503 remote_evidence_image_unavailable through the whole service (spec 4.1, R23)', function () {
  this.timeout(30_000);
  let rig: ImageRig;
  before(async () => {
    rig = await startImageRig();
  });
  const app = useService(() => ({
    REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
    IMAGE_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
    ...geminiEnv(rig.gemini),
  }));
  after(() => rig?.close());

  [
    { path: '/status-500.png', why: 'a 500' },
    { path: '/status-503.png', why: 'a 503' },
    { path: '/status-429.png', why: 'a 429' },
  ].forEach(({ path, why }, n) => {
    it(`${why}: 503 with details {imageIndex: ${n}}, nothing stored or generated (R23)`, async () => {
      await expectImageFailure({ serviceUrl: app.service.url, host: rig.host, gemini: rig.gemini, path, index: n, code: 'remote_evidence_image_unavailable' });
    });
  });

  it('a slow drip is cut at IMAGE_FETCH_TIMEOUT_MS: 503 within a generous bound, nothing stored or generated (R22, R23)', async () => {
    const started = performance.now();
    await expectImageFailure({ serviceUrl: app.service.url, host: rig.host, gemini: rig.gemini, path: '/drip.png', index: 1, code: 'remote_evidence_image_unavailable' });
    // The drip would take over 12 s to finish; the bound is far above the 0.8 s limit.
    expect(performance.now() - started).to.be.below(8_000);
  });
});
