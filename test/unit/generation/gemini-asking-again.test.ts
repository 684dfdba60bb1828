// R42 and R24: when a Gemini request may be asked again (the next model of GEMINI_MODEL, or the
// one retry on the last) and when never. A connection that was never made reached nobody and may
// be asked again; a connection lost once made (the body cut after the 200, a reset) may have been
// answered, and billed, already: it is a 503 without a second request. A 429 whose RetryInfo
// delay does not fit the deadline is not retried on the same model at all. fetch is replaced by
// one that answers as undici does, with the error shapes undici throws, so no socket is opened.
import { expect } from 'chai';
import { classifyCallError, fallsThrough } from '../../../src/generation/gemini-answer.ts';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import type { AttemptOutcome, GenerationObserver } from '../../../src/generation/report-generator.ts';
import { rateLimitedAnswer, reportAnswer } from '../../support/generation/fake-gemini-server.ts';
import type { FakeGeminiAnswer } from '../../support/generation/fake-gemini-server.ts';
import { geminiGenerator, input } from '../../support/generation/helpers.ts';
import { rejectionOf } from '../../support/rejection.ts';

const PRIMARY = 'gemini-primary-flash';
const FALLBACK = 'gemini-fallback-flash';

/** An error carrying an errno or undici code, as Node and undici make them. */
const coded = (message: string, code: string, name = 'Error'): Error => Object.assign(new Error(message), { name, code });
/** fetch's rejection before any status: TypeError('fetch failed') with the socket's error as cause. */
const fetchFailed = (cause?: Error): TypeError => new TypeError('fetch failed', cause === undefined ? undefined : { cause });
/** undici's error of a body cut after the status arrived. */
const terminated = (): TypeError => new TypeError('terminated', { cause: coded('other side closed', 'UND_ERR_SOCKET', 'SocketError') });
const refused = (): TypeError => fetchFailed(coded('connect ECONNREFUSED 192.0.2.1:443', 'ECONNREFUSED'));
const reset = (): TypeError => fetchFailed(coded('read ECONNRESET', 'ECONNRESET'));

const NEVER_CONNECTED: [string, Error][] = [
  ['ECONNREFUSED', refused()],
  ['ENOTFOUND', fetchFailed(coded('getaddrinfo ENOTFOUND generativelanguage.googleapis.com', 'ENOTFOUND'))],
  ['EAI_AGAIN', fetchFailed(coded('getaddrinfo EAI_AGAIN generativelanguage.googleapis.com', 'EAI_AGAIN'))],
  ['EHOSTUNREACH', fetchFailed(coded('connect EHOSTUNREACH 192.0.2.1:443', 'EHOSTUNREACH'))],
  ['ENETUNREACH', fetchFailed(coded('connect ENETUNREACH 192.0.2.1:443', 'ENETUNREACH'))],
  ['UND_ERR_CONNECT_TIMEOUT', fetchFailed(coded('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT', 'ConnectTimeoutError'))],
  ['ECONNREFUSED of every address (AggregateError)', fetchFailed(Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' }))],
  ['a refused certificate (CERT_HAS_EXPIRED)', fetchFailed(coded('certificate has expired', 'CERT_HAS_EXPIRED'))],
];

const LOST: [string, Error][] = [
  ['terminated (the body cut after the 200)', terminated()],
  ['terminated, after a reset', new TypeError('terminated', { cause: coded('read ECONNRESET', 'ECONNRESET') })],
  ['ECONNRESET', reset()],
  ['EPIPE', fetchFailed(coded('write EPIPE', 'EPIPE'))],
  ['UND_ERR_SOCKET (closed before the status)', fetchFailed(coded('other side closed', 'UND_ERR_SOCKET', 'SocketError'))],
  ['ETIMEDOUT (a connection that went silent)', fetchFailed(coded('read ETIMEDOUT', 'ETIMEDOUT'))],
  ['fetch failed without a cause', fetchFailed()],
];

describe('Gemini failures: which may be asked again (R42, R24)', () => {
  for (const [what, error] of NEVER_CONNECTED) {
    it(`${what}: no connection was made, unavailable/unreachable, and it may go on (R42)`, () => {
      const failure = classifyCallError(error);
      expect(failure).to.include({ kind: 'unavailable', reason: 'unreachable' });
      expect(fallsThrough(failure)).to.equal(true);
    });
  }

  for (const [what, error] of LOST) {
    it(`${what}: the request may have been delivered, unavailable/connection_lost, and never asked again (R42, R24)`, () => {
      const failure = classifyCallError(error);
      expect(failure).to.include({ kind: 'unavailable', reason: 'connection_lost' });
      expect(fallsThrough(failure)).to.equal(false);
    });
  }

  it('of the provider\'s answers, only 404, 408, 429 and 5xx go on (R42)', () => {
    for (const reason of ['http_404', 'http_408', 'http_429', 'http_500', 'http_503']) {
      expect(fallsThrough(new GenerationError(reason === 'http_404' ? 'failed' : 'unavailable', reason)), reason).to.equal(true);
    }
    for (const [kind, reason] of [
      ['failed', 'http_400'],
      ['failed', 'http_403'],
      ['unavailable', 'timeout'],
      ['unavailable', 'aborted'],
      ['unavailable', 'credentials_token_endpoint_unreachable'],
      ['unavailable', 'credentials_token_endpoint_http_503'],
      ['failed', 'refused'],
      ['invalid', 'not_json'],
    ] as const) {
      expect(fallsThrough(new GenerationError(kind, reason)), reason).to.equal(false);
    }
  });

  it('keeps the reason a fixed word: no address, host or provider text (R24)', () => {
    const failure = classifyCallError(fetchFailed(coded('connect ECONNREFUSED 192.0.2.1:443 (secret detail)', 'ECONNREFUSED')));
    expect(failure.message).not.to.contain('192.0.2.1').and.not.to.contain('secret detail');
    expect(classifyCallError(terminated()).message).not.to.contain('other side closed');
  });
});

type Reply = () => Response;

const jsonReply = (answer: FakeGeminiAnswer): Reply => () => {
  if (!('body' in answer)) throw new Error('a JSON answer is needed here');
  return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200, headers: { 'content-type': 'application/json; charset=UTF-8' } });
};
const throwing = (error: () => Error): Reply => () => {
  throw error();
};
/** A 200 whose body breaks off after its start, the way undici errors the body stream. */
const cutBody: Reply = () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"candidates": [{"content": {"parts": [{"text": "{\\"title\\"'));
      controller.error(terminated());
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=UTF-8' } });
};

class RecordingObserver implements GenerationObserver {
  readonly attempts: [string, AttemptOutcome][] = [];
  attempt(model: string, outcome: AttemptOutcome): void {
    this.attempts.push([model, outcome]);
  }
  tokens(): void {}
}

describe('Gemini generator: asking again, or not, without a socket (R42, R24)', () => {
  const realFetch = globalThis.fetch;
  /** The model of every generateContent call, in order, with when it was made. */
  let calls: { model: string; at: number }[];
  let replies: Reply[];

  beforeEach(() => {
    calls = [];
    replies = [];
    globalThis.fetch = (async (url: string | URL | Request) => {
      const path = new URL(url instanceof Request ? url.url : url).pathname;
      calls.push({ model: /\/models\/([^/:]+):generateContent$/.exec(path)?.[1] ?? path, at: performance.now() });
      return (replies.shift() ?? jsonReply(reportAnswer()))();
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  const generator = (models: string[], observer: GenerationObserver = new RecordingObserver()) =>
    geminiGenerator('http://gemini.test', { models, observer, timeoutMs: 3_000, minRetryWindowMs: 500 });

  it('a body cut after the 200 is 503 connection_lost, and the next model is not asked (R42, R24)', async () => {
    replies.push(cutBody);
    const observer = new RecordingObserver();
    const error = await rejectionOf((await generator([PRIMARY, FALLBACK], observer)).generate(input()), GenerationError);
    expect(error).to.include({ kind: 'unavailable', reason: 'connection_lost' });
    expect(calls.map((c) => c.model)).to.deep.equal([PRIMARY]);
    expect(observer.attempts).to.deep.equal([[PRIMARY, 'unavailable']]);
  });

  it('a body cut after the 200 on the last model is not retried (R42, R24)', async () => {
    replies.push(cutBody);
    const error = await rejectionOf((await generator([PRIMARY])).generate(input()), GenerationError);
    expect(error).to.include({ kind: 'unavailable', reason: 'connection_lost' });
    expect(calls).to.have.lengthOf(1);
  });

  it('a connection reset once made goes neither to the next model nor again to the last (R42, R24)', async () => {
    replies.push(throwing(reset));
    expect(await rejectionOf((await generator([PRIMARY, FALLBACK])).generate(input()), GenerationError)).to.include({ reason: 'connection_lost' });
    expect(calls.map((c) => c.model)).to.deep.equal([PRIMARY]);
    calls = [];
    replies.push(throwing(reset));
    expect(await rejectionOf((await generator([PRIMARY])).generate(input()), GenerationError)).to.include({ reason: 'connection_lost' });
    expect(calls).to.have.lengthOf(1);
  });

  it('a connection that was never made goes on to the next model, and is retried once on the last (R42)', async () => {
    replies.push(throwing(refused));
    expect((await (await generator([PRIMARY, FALLBACK])).generate(input())).model).to.equal(FALLBACK);
    expect(calls.map((c) => c.model)).to.deep.equal([PRIMARY, FALLBACK]);
    calls = [];
    replies.push(throwing(refused));
    expect((await (await generator([PRIMARY])).generate(input())).model).to.equal(PRIMARY);
    expect(calls.map((c) => c.model)).to.deep.equal([PRIMARY, PRIMARY]);
  });

  it('a 429 whose RetryInfo delay does not fit the deadline, on the last model, is the answer: no retry (R42)', async () => {
    replies.push(jsonReply(rateLimitedAnswer('30s')));
    const observer = new RecordingObserver();
    const error = await rejectionOf((await generator([PRIMARY], observer)).generate(input()), GenerationError);
    expect(error).to.include({ kind: 'unavailable', reason: 'http_429' });
    expect(calls).to.have.lengthOf(1);
    expect(observer.attempts).to.deep.equal([[PRIMARY, 'rate_limited']]);
  });

  it('a 429 whose RetryInfo delay does not fit goes on to the next model, which is not retried on that account (R42)', async () => {
    replies.push(jsonReply(rateLimitedAnswer('30s')), jsonReply(rateLimitedAnswer('30s')));
    const error = await rejectionOf((await generator([PRIMARY, FALLBACK])).generate(input()), GenerationError);
    expect(error).to.include({ reason: 'http_429' });
    expect(calls.map((c) => c.model)).to.deep.equal([PRIMARY, FALLBACK]);
  });

  it('a 429 whose RetryInfo delay fits is retried on the last model after that delay (R42)', async () => {
    replies.push(jsonReply(rateLimitedAnswer('0.05s')));
    expect((await (await generator([PRIMARY])).generate(input())).model).to.equal(PRIMARY);
    expect(calls).to.have.lengthOf(2);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).to.be.at.least(45);
  });

  it('a 429 without RetryInfo keeps the one retry of the last model (R42, R24)', async () => {
    replies.push(jsonReply(rateLimitedAnswer(undefined)));
    expect((await (await generator([PRIMARY])).generate(input())).model).to.equal(PRIMARY);
    expect(calls).to.have.lengthOf(2);
  });
});
