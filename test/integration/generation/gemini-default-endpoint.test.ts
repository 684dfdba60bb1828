// Operator interface: without GEMINI_BASE_URL the adapter calls Google's public
// endpoint, key in the x-goog-api-key header. nock stands in for it with the network shut, so
// this test proves the production path and headers without touching the internet.
import { expect } from 'chai';
import type NockModule from 'nock';
import { GEMINI_DEFAULT_BASE_URL } from '../../../src/generation/gemini-generator.ts';
import { VALID_REPORT } from '../../support/generation/fake-gemini-server.ts';
import { TEST_API_KEY, TEST_MODEL, geminiGenerator, input } from '../../support/generation/helpers.ts';
import { checkGenerateContentRequest } from './gemini-request-schema.ts';

const ANSWER = { candidates: [{ content: { parts: [{ text: JSON.stringify(VALID_REPORT) }] }, finishReason: 'STOP' }] };

/** nock matches only a body the real API would take (the fake Gemini's strict check). */
const strict = (body: unknown): boolean => checkGenerateContentRequest(body, 'developer') === undefined;

describe('Gemini generator: default endpoint (operator interface GEMINI_BASE_URL unset)', () => {
  // nock patches http and fetch process-wide as soon as it is loaded: load it here, not at
  // import time, and restore the real stack afterwards so other suites never run under it.
  let nock: typeof NockModule;
  before(async () => {
    nock = (await import('nock')).default;
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
  });
  afterEach(() => nock.cleanAll());
  after(() => {
    nock.enableNetConnect();
    nock.restore();
  });

  it('POSTs to generativelanguage.googleapis.com/v1beta/models/{model}:generateContent with x-goog-api-key (R2)', async () => {
    const scope = nock(GEMINI_DEFAULT_BASE_URL, { reqheaders: { 'x-goog-api-key': TEST_API_KEY } })
      .post(`/v1beta/models/${TEST_MODEL}:generateContent`, (body: { generationConfig?: { responseMimeType?: string } }) => strict(body) && body.generationConfig?.responseMimeType === 'application/json')
      .reply(200, ANSWER);
    const output = await (await geminiGenerator(undefined)).generate(input());
    expect(output.candidate).to.deep.equal(VALID_REPORT);
    expect(scope.isDone()).to.equal(true);
  });

  it('ignores the SDK\'s own environment overrides (GOOGLE_GEMINI_BASE_URL, GOOGLE_GENAI_API_VERSION) (R2)', async () => {
    const saved = { base: process.env['GOOGLE_GEMINI_BASE_URL'], version: process.env['GOOGLE_GENAI_API_VERSION'] };
    process.env['GOOGLE_GEMINI_BASE_URL'] = 'http://127.0.0.1:9';
    process.env['GOOGLE_GENAI_API_VERSION'] = 'v1';
    try {
      const scope = nock(GEMINI_DEFAULT_BASE_URL).post(`/v1beta/models/${TEST_MODEL}:generateContent`, strict).reply(200, ANSWER);
      await (await geminiGenerator(undefined)).generate(input());
      expect(scope.isDone()).to.equal(true);
    } finally {
      for (const [name, value] of [['GOOGLE_GEMINI_BASE_URL', saved.base], ['GOOGLE_GENAI_API_VERSION', saved.version]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('makes exactly one request per attempt: the SDK adds no retry of its own (R2)', async () => {
    let requests = 0;
    nock(GEMINI_DEFAULT_BASE_URL)
      .post(`/v1beta/models/${TEST_MODEL}:generateContent`, strict)
      .times(10)
      .reply(() => {
        requests += 1;
        return [503, { error: { code: 503, status: 'UNAVAILABLE', message: 'x' } }];
      });
    const error = await (await geminiGenerator(undefined)).generate(input()).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'http_503' });
    expect(requests).to.equal(2); // the first attempt and our one retry
  });
});
