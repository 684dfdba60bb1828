// 422 invalid_evidence_report_input (ruling R7): the limits the specification keeps unpublished
// (text length, image count, URL length, language length) are checked after the HTTP schema,
// before the rate limit, and reach neither the image host nor the generator. Small values are
// configured here so that the limits are cheap to cross.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { useService } from '../../support/use-service.ts';
import { customerTotals } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const TEXT_MAX = 40;
const IMAGE_MAX = 2;
const URL_MAX = 32;
const LANGUAGE_MAX = 5;

const url = (n: number) => `https://img.example/${n}.png`; // 25 characters
const report = (evidence: unknown, extra: Record<string, unknown> = {}) => ({ context: 'field_inspection', evidence, ...extra });

describe('POST /v1/evidence/reports: 422 invalid_evidence_report_input (R7)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();

  const env = {
    EVIDENCE_TEXT_MAX_CHARS: String(TEXT_MAX),
    IMAGE_MAX_COUNT: String(IMAGE_MAX),
    IMAGE_URL_MAX_CHARS: String(URL_MAX),
    LANGUAGE_MAX_CHARS: String(LANGUAGE_MAX),
  };
  const app = useService(env, { generator, imageFetcher });

  it('text over EVIDENCE_TEXT_MAX_CHARS is 422 with pointer /evidence/text (R7)', async () => {
    const res = await app.client.create(report({ text: 'x'.repeat(TEXT_MAX + 1) }));
    expectApiError(res, 'invalid_evidence_report_input', { pointer: '/evidence/text', rule: 'maxLength' });
  });

  it('more than IMAGE_MAX_COUNT images is 422 with pointer /evidence/images (R7)', async () => {
    const res = await app.client.create(report({ images: [url(1), url(2), url(3)].map((u) => ({ url: u })) }));
    expectApiError(res, 'invalid_evidence_report_input', { pointer: '/evidence/images', rule: 'maxItems' });
  });

  it('an image URL over IMAGE_URL_MAX_CHARS is 422 naming that image (R7)', async () => {
    const long = `https://img.example/${'a'.repeat(URL_MAX)}.png`;
    const res = await app.client.create(report({ images: [{ url: url(1) }, { url: long }] }));
    expectApiError(res, 'invalid_evidence_report_input', { pointer: '/evidence/images/1/url', rule: 'maxLength' });
  });

  it('language over LANGUAGE_MAX_CHARS is 422 with pointer /language (R7)', async () => {
    const res = await app.client.create(report({ text: 'leak' }, { language: 'x'.repeat(LANGUAGE_MAX + 1) }));
    expectApiError(res, 'invalid_evidence_report_input', { pointer: '/language', rule: 'maxLength' });
  });

  it('a schema violation is reported before an application limit (R29: schema, then R7 limits)', async () => {
    const res = await app.client.create(report({ text: 'x'.repeat(TEXT_MAX + 1), extra: true }));
    expectApiError(res, 'invalid_request_payload', { pointer: '/evidence/extra', rule: 'additionalProperties' });
  });

  it('every value exactly at its limit is accepted, characters counted as code points (R7)', async () => {
    const atLimit = report(
      { text: '🚧'.repeat(TEXT_MAX), images: [{ url: url(1) }, { url: `https://img.example/${'b'.repeat(URL_MAX - 24)}.png` }] },
      { language: 'pt-BR' },
    );
    const res = await app.client.create(atLimit);
    expect(res.status, res.text).to.equal(201);
  });

  it('a request over a limit reaches no image host and no generator, and leaves nothing', async () => {
    // Only the request at the limits went on: one fetch of its two images, one generation.
    expect(imageFetcher.calls).to.have.length(1);
    expect(generator.callCount).to.equal(1);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });
});
