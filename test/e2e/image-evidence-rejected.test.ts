// Misbehaving image hosts through the whole service (spec 4.1 remote image rule 3, R22, R23):
// oversize with and without Content-Length, SVG, a declared type the bytes contradict, HTML, a
// 404, and redirects to 169.254.169.254 and [::1] give 422 remote_evidence_image_rejected with
// details {imageIndex} only; no report, no unit, no generator call, nothing internal said.
import { expect } from 'chai';
import { useService } from '../support/use-service.ts';
import { startFakeGemini, type FakeGemini } from '../support/generation/fake-gemini-server.ts';
import { geminiEnv } from '../support/e2e/gemini-service.ts';
import type { ImageServer } from '../support/images/image-server.ts';
import { startImageHost, startV6Guard } from '../support/e2e/image-host.ts';
import { expectImageFailure } from '../support/e2e/image-failure.ts';

const MAX_BYTES = 4096;

const CASES: { path: string; why: string; secrets?: string[] }[] = [
  { path: '/big-declared.png', why: 'a declared Content-Length above IMAGE_MAX_BYTES' },
  { path: '/big-chunked.png', why: 'a chunked body that grows past IMAGE_MAX_BYTES' },
  { path: '/drawing.svg', why: 'SVG (image/svg+xml is not one of the four types)' },
  { path: '/svg-declared-png.png', why: 'SVG bytes declared image/png (lying type)' },
  { path: '/png-declared-jpeg.jpg', why: 'PNG bytes declared image/jpeg (lying type)' },
  { path: '/page.html', why: 'an HTML page' },
  { path: '/missing.png', why: 'a 404' },
  { path: '/to-metadata.png', why: 'a redirect to the metadata address 169.254.169.254', secrets: ['169.254.169.254', 'meta-data', 'security-credentials'] },
  { path: '/to-v6-loopback.png', why: 'a redirect to [::1]', secrets: ['[::1]', '::1'] },
];

describe('image hosts that misbehave give 422 remote_evidence_image_rejected through the whole service (spec 4.1, R23)', function () {
  this.timeout(30_000);
  let host: ImageServer;
  let gemini: FakeGemini;
  let guard: Awaited<ReturnType<typeof startV6Guard>>;

  before(async () => {
    guard = await startV6Guard();
    host = await startImageHost({ oversizeBytes: 64 * 1024, v6LoopbackPort: guard.port });
    gemini = await startFakeGemini();
  });
  const app = useService(() => ({
    REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
    IMAGE_MAX_BYTES: String(MAX_BYTES),
    ...geminiEnv(gemini),
  }));
  after(async () => {
    await gemini?.stop();
    await host?.close();
    await guard?.close();
  });

  CASES.forEach(({ path, why, secrets }, n) => {
    const index = n % 3;
    it(`${why}: 422 with details {imageIndex: ${index}}, nothing stored or generated (R23)`, async () => {
      await expectImageFailure({ serviceUrl: app.service.url, host, gemini, path, index, code: 'remote_evidence_image_rejected', secrets, withText: n % 2 === 0 });
    });
  });

  it('nothing ever connected to the [::1] redirect target', () => {
    expect(guard.connections).to.deep.equal([]);
  });
});
