// The fake Gemini is as strict as the real API (its check is live): a field that
// GenerateContentRequest does not define, or a value outside its enum, is answered 400
// INVALID_ARGUMENT in Google's error shape. And every setting combination the service can send
// (temperature set or not x each thinking level x output bound x images or not x Developer API or
// Vertex AI) passes that check and reaches the model with exactly those settings.
import { expect } from 'chai';
import { geminiResponseSchema } from '../../../src/generation/create-report-generator.ts';
import { GeminiReportGenerator } from '../../../src/generation/gemini-generator.ts';
import type { VertexCredentials } from '../../../src/generation/vertex-credentials.ts';
import type { ThinkingLevel } from '../../../src/config.ts';
import { checkGenerateContentRequest } from './gemini-request-schema.ts';
import { DEVELOPER_REQUEST_LIMIT_BYTES, startFakeGemini, type FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { sentBody, sentImages } from '../../support/generation/gemini-request-inspection.ts';
import { contractCheck, contractDocument, image, input, JPEG_BYTES, PNG_BYTES, TEST_API_KEY } from '../../support/generation/helpers.ts';

async function post(fake: FakeGemini, body: unknown): Promise<{ status: number; json: { error: { code: number; status: string; message: string } } }> {
  const res = await fetch(`${fake.baseUrl}/v1beta/models/gemini-test-flash:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_API_KEY },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as never };
}

const VALID = { contents: [{ role: 'user', parts: [{ text: 'hello' }] }], generationConfig: { responseMimeType: 'application/json' } };

describe('the fake Gemini refuses what the real API refuses (400 INVALID_ARGUMENT)', () => {
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini();
  });
  afterEach(() => fake.reset());
  after(() => fake.stop());

  for (const [what, body, named] of [
    ['an unknown top-level field', { ...VALID, temperature: 0.2 }, 'temperature'],
    ['an unknown generationConfig field', { ...VALID, generationConfig: { thinkingLevel: 'LOW' } }, 'thinkingLevel'],
    ['an unknown thinkingConfig field', { ...VALID, generationConfig: { thinkingConfig: { level: 'LOW' } } }, 'level'],
    ['an unknown part field', { contents: [{ role: 'user', parts: [{ text: 'x', image: 'y' }] }] }, 'image'],
    ['an SDK-side name sent as is (config instead of generationConfig)', { ...VALID, config: {} }, 'config'],
  ] as const) {
    it(`refuses ${what}, naming it`, async () => {
      const { status, json } = await post(fake, body);
      expect(status).to.equal(400);
      expect(json.error).to.include({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(json.error.message).to.include(`Unknown name "${named}"`);
      expect(fake.refused).to.have.lengthOf(1);
    });
  }

  for (const [what, generationConfig] of [
    ['a thinking level outside its enum', { thinkingConfig: { thinkingLevel: 'EXTREME' } }],
    ['a response MIME type the API does not produce', { responseMimeType: 'application/xml' }],
    ['a schema type outside its enum', { responseSchema: { type: 'DATE' } }],
    ['a temperature outside its range', { temperature: 3 }],
  ] as const) {
    it(`refuses ${what}`, async () => {
      const { status, json } = await post(fake, { ...VALID, generationConfig });
      expect(status).to.equal(400);
      expect(json.error.status).to.equal('INVALID_ARGUMENT');
    });
  }

  it('refuses an inline image of a type Gemini does not take (image/gif), as the real API does', async () => {
    const body = { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/gif', data: 'R0lGODlh' } }] }] };
    const { status, json } = await post(fake, body);
    expect(status).to.equal(400);
    expect(json.error.status).to.equal('INVALID_ARGUMENT');
  });

  it("answers a Developer API call without a key 403 PERMISSION_DENIED and a Vertex AI call without a token 401 UNAUTHENTICATED, as Google does", async () => {
    const developer = await fetch(`${fake.baseUrl}/v1beta/models/gemini-test-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(VALID),
    });
    expect(developer.status).to.equal(403);
    expect(((await developer.json()) as { error: unknown }).error).to.include({ code: 403, status: 'PERMISSION_DENIED' });
    const vertex = await fetch(`${fake.baseUrl}/v1beta1/projects/p/locations/global/publishers/google/models/gemini-test-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(VALID),
    });
    expect(vertex.status).to.equal(401);
    expect(((await vertex.json()) as { error: unknown }).error).to.include({ code: 401, status: 'UNAUTHENTICATED' });
  });

  it('refuses a Developer API request over 20 MB, inline data included, and takes one of exactly 20 MB', async () => {
    const withData = (bytes: number) => {
      const shell = JSON.stringify({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: '' } }] }] });
      const data = 'A'.repeat(bytes - Buffer.byteLength(shell));
      return { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data } }] }] };
    };
    const over = await post(fake, withData(DEVELOPER_REQUEST_LIMIT_BYTES + 1));
    expect(over.status).to.equal(400);
    expect(over.json.error).to.include({ code: 400, status: 'INVALID_ARGUMENT', message: `Request payload size exceeds the limit: ${DEVELOPER_REQUEST_LIMIT_BYTES} bytes.` });
    const at = await post(fake, withData(DEVELOPER_REQUEST_LIMIT_BYTES));
    expect(at.status).to.equal(200);
  });

  it('accepts a well-formed request (the check refuses only what it should)', async () => {
    expect(checkGenerateContentRequest(VALID, 'developer')).to.equal(undefined);
    const { status } = await post(fake, VALID);
    expect(status).to.equal(200);
  });

  it('knows the Developer API from Vertex AI: inlineData.displayName exists only on Vertex AI', () => {
    const body = { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA', displayName: 'x' } }] }] };
    expect(checkGenerateContentRequest(body, 'developer')).to.include('displayName');
    expect(checkGenerateContentRequest(body, 'vertex')).to.equal(undefined);
  });
});

describe('every setting combination the service can send passes the strict check (R43, R44)', function () {
  this.timeout(60_000);
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini();
  });
  after(() => fake.stop());

  /** Credentials whose token is already there: the Vertex AI path without a metadata server (that is gemini-vertex's test). */
  const staticCredentials = {
    client: async () => ({
      authClient: {
        getRequestHeaders: async () => new Headers({ authorization: 'Bearer test-token' }),
        getAccessToken: async () => ({ token: 'test-token' }),
      },
      project: 'test-project',
    }),
    token: async () => undefined,
    reset: () => undefined,
  } as unknown as VertexCredentials;

  const temperatures = [undefined, 1.0, 0.4];
  const levels: ThinkingLevel[] = ['minimal', 'low', 'medium', 'high'];
  const bounds = [undefined, 1024, 65_536];
  const imageSets = [[], [image('image/png', PNG_BYTES), image('image/jpeg', JPEG_BYTES)]];
  const apis = ['developer', 'vertex'] as const;

  it(`walks ${temperatures.length * levels.length * bounds.length * imageSets.length * apis.length} combinations`, async () => {
    const responseSchema = geminiResponseSchema(await contractDocument());
    const checkCandidate = await contractCheck();
    let count = 0;
    for (const api of apis) {
      for (const temperature of temperatures) {
        for (const thinkingLevel of levels) {
          for (const maxOutputTokens of bounds) {
            for (const images of imageSets) {
              fake.reset();
              const generator = new GeminiReportGenerator({
                ...(api === 'developer' ? { apiKey: TEST_API_KEY } : { vertex: { project: 'test-project', location: 'europe-west4', credentials: staticCredentials } }),
                models: ['gemini-test-flash'],
                baseUrl: fake.baseUrl,
                timeoutMs: 3_000,
                responseSchema,
                checkCandidate,
                temperature,
                thinkingLevel,
                ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
              });
              const output = await generator.generate(input({ images }));
              const what = JSON.stringify({ api, temperature, thinkingLevel, maxOutputTokens, images: images.length });
              expect(fake.refused, what).to.deep.equal([]);
              expect(output.generator, what).to.equal('gemini');
              const request = fake.requests[0];
              expect(request?.api, what).to.equal(api);
              if (api === 'vertex') expect(request).to.include({ project: 'test-project', location: 'europe-west4' });
              const config = sentBody(request).generationConfig;
              if (temperature === undefined) expect(config, what).not.to.have.property('temperature');
              else expect(config.temperature, what).to.equal(temperature);
              expect(config.thinkingConfig, what).to.deep.equal({ thinkingLevel: thinkingLevel.toUpperCase() });
              expect(config.maxOutputTokens, what).to.equal(maxOutputTokens ?? 8192);
              expect(sentImages(request), what).to.have.lengthOf(images.length);
              count++;
            }
          }
        }
      }
    }
    expect(count).to.equal(temperatures.length * levels.length * bounds.length * imageSets.length * apis.length);
  });

  it('the default models refuse minimal thinking as the real ones do (R43), so the start refuses that pairing', async () => {
    for (const [model, refused] of [
      ['gemini-3.8-flash', true],
      ['gemini-3.7-flash', true],
      ['gemini-3.8-flash-lite', false],
      ['gemini-3.6-flash', false],
    ] as const) {
      fake.reset();
      const generator = new GeminiReportGenerator({ apiKey: TEST_API_KEY, models: [model], baseUrl: fake.baseUrl, timeoutMs: 3_000, responseSchema: geminiResponseSchema(await contractDocument()), checkCandidate: await contractCheck(), thinkingLevel: 'minimal' });
      const outcome = await generator.generate(input()).then(
        () => 'ok',
        (error: unknown) => (error as { kind?: string }).kind,
      );
      expect(outcome, model).to.equal(refused ? 'failed' : 'ok');
      expect(fake.refused.map((r) => r.message), model).to.deep.equal(refused ? ["'minimal' is not a supported thinking level for this model. Allowed values are: medium, low, high."] : []);
    }
  });
});
