// What Gemini receives when the whole service runs (spec section 1, R22, R38): the key
// in x-goog-api-key, the configured model, the context, the language guidance and the evidence
// text, and each image as inline bytes of its normalized form, never its URL nor the original.
import { expect } from 'chai';
import sharp from 'sharp';
import { client } from '../support/http-client.ts';
import { createCustomerFixture } from '../support/database.ts';
import { sentData, sentImages } from '../support/generation/gemini-request-inspection.ts';
import { IMAGES } from '../support/e2e/image-host.ts';
import { expectCleanLog, useGeminiRun } from '../support/e2e/gemini-service.ts';

describe('Gemini end to end: the request carries the key, the context, the language and the image bytes, never a URL (R22)', function () {
  this.timeout(30_000);
  const suite = useGeminiRun({}, { resetAfterEach: false, imageHost: true });
  const { customerKeys } = suite;

  it('one generateContent call with the key header, the model, the request data and the normalized bytes inline (R22, R38)', async () => {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    const served = [IMAGES.jpeg, IMAGES.png, IMAGES.webp, IMAGES.gif];
    const text = 'Der Aufzug im Haus B bleibt zwischen den Etagen stehen.';
    const res = await client(suite.run.service.url, customer.apiKey).createReport({
      context: 'field_inspection',
      language: 'de-CH',
      evidence: { text, images: served.map((i) => ({ url: suite.host.url(i.path) })) },
    });
    expect(res.status, res.text).to.equal(201);

    expect(suite.run.gemini.requests).to.have.length(1);
    const request = suite.run.gemini.requests[0]!;
    expect(request.method).to.equal('POST');
    expect(request.model).to.equal(suite.run.model);
    expect(request.headers['x-goog-api-key']).to.equal(suite.run.geminiKey);

    const data = sentData(request);
    expect(data.context).to.equal('field_inspection');
    expect(data.outputLanguage).to.equal('de-CH');
    expect(data.evidenceText).to.equal(text);

    // The 2 x 2 fixtures have no transparency: each arrives re-encoded as a 2 x 2 JPEG (R38).
    const inline = sentImages(request);
    expect(inline.map((p) => p.mimeType)).to.deep.equal(served.map(() => 'image/jpeg'));
    for (const [n, part] of inline.entries()) {
      const bytes = Buffer.from(part.data, 'base64');
      expect(bytes.equals(served[n]!.bytes), `image ${n} is the original`).to.equal(false);
      const decoded = await sharp(bytes).metadata();
      expect([decoded.format, decoded.width, decoded.height], `image ${n}`).to.deep.equal(['jpeg', 2, 2]);
    }
    expect(data.images).to.deep.equal(inline.map((part, n) => ({ image: n + 1, mimeType: 'image/jpeg', sizeBytes: Buffer.from(part.data, 'base64').length, width: 2, height: 2 })));

    // No URL, host, port or path of the image host, and no customer key, anywhere in the request.
    // (The Host header names the fake Gemini's own loopback address: left out.)
    const { host: _geminiHost, ...headers } = request.headers;
    const everything = `${request.url}\n${JSON.stringify(headers)}\n${request.rawBody}`;
    for (const word of ['127.0.0.1', `:${suite.host.port}`, '/photos/', 'tiny.', customer.apiKey, 'x-api-key']) {
      expect(everything.toLowerCase(), `the Gemini request names ${word}`).not.to.include(word.toLowerCase());
    }
    expect(request.rawBody).not.to.match(/https?:\/\//i);
  });

  it('images-only evidence sends the normalized bytes inline and no evidence text (R22, R28, R38)', async () => {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    const before = suite.run.gemini.requests.length;
    const res = await client(suite.run.service.url, customer.apiKey).createReport({
      context: 'delivery_confirmation',
      evidence: { images: [{ url: suite.host.url(IMAGES.png.path) }] },
    });
    expect(res.status, res.text).to.equal(201);
    const request = suite.run.gemini.requests[before]!;
    const data = sentData(request);
    expect(data.context).to.equal('delivery_confirmation');
    expect(data.outputLanguage).to.equal(null);
    expect(data.evidenceText).to.equal(null);
    const inline = sentImages(request);
    expect(inline).to.have.length(1);
    expect(inline[0]!.mimeType).to.equal('image/jpeg');
    expect((await sharp(Buffer.from(inline[0]!.data, 'base64')).metadata()).format).to.equal('jpeg');
    expect(request.rawBody).not.to.match(/https?:\/\/|127\.0\.0\.1/i);
  });

  it('the log of the run names neither the Gemini key nor a customer key, nor the model in ordinary lines (R26)', () => {
    expectCleanLog(suite.run, customerKeys);
  });
});
