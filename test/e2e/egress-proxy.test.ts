// R45, end to end through `node src/main.ts` (what `npm start` runs, without NODE_USE_ENV_PROXY):
// HTTPS_PROXY / HTTP_PROXY carry the generator's requests, the token requests of R44 and OTLP
// exports through a local forward proxy, and never an image fetch, even in the same request.
// The generator and the collector are reached by names only the proxy resolves, so their
// answers prove the passage; the image host is reached on its own address, and the proxy's
// record proves it was not asked for it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { createCustomerFixture } from '../support/database.ts';
import { startForwardProxy, type ForwardProxy } from '../support/forward-proxy.ts';
import { client } from '../support/http-client.ts';
import { useServiceProcess } from '../support/e2e/service-process.ts';
import { startFakeGemini, type FakeGemini } from '../support/generation/fake-gemini-server.ts';
import { sentImages } from '../support/generation/gemini-request-inspection.ts';
import { FIXTURES, TLS_CERT, TLS_KEY } from '../support/images/fixtures.ts';
import type { ImageServer } from '../support/images/image-server.ts';
import { serviceAccountKey } from '../support/e2e/google-auth-servers.ts';
import { IMAGES, startImageHost } from '../support/e2e/image-host.ts';

/** The fixture certificate's name (test/integration/images/fixtures/server.crt): here, the Gemini host behind the proxy. */
const GEMINI_HOST = 'img.test';
const COLLECTOR_HOST = 'collector.test';

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the egress proxy carries the generator, token requests and OTLP, never images (R45)', function () {
  this.timeout(90_000);
  let proxy: ForwardProxy;

  before(async () => {
    proxy = await startForwardProxy({ hosts: [GEMINI_HOST, COLLECTOR_HOST] });
  });
  afterEach(() => {
    proxy.seen.length = 0;
  });
  after(async () => {
    await proxy.close();
  });
  const service = useServiceProcess('ers-proxy-', () => ({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url }));
  const { start } = service;

  describe('a report with an image', () => {
    let gemini: FakeGemini;
    let host: ImageServer;
    before(async () => {
      gemini = await startFakeGemini({ tls: { cert: TLS_CERT, key: TLS_KEY } });
      host = await startImageHost();
    });
    after(async () => {
      await gemini.stop();
      await host.close();
    });

    it('sends the generator through the proxy (CONNECT) and fetches the image of the same request directly', async () => {
      const geminiPort = new URL(gemini.baseUrl).port;
      const url = await start({
        REPORT_GENERATOR: 'gemini',
        GEMINI_API_KEY: 'test-key-egress-proxy-0123456789',
        GEMINI_BASE_URL: `https://${GEMINI_HOST}:${geminiPort}`,
        GEMINI_MODEL: 'gemini-proxy-e2e-flash',
        NODE_EXTRA_CA_CERTS: join(FIXTURES, 'ca.crt'),
        REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
      });
      const imageUrl = host.url(IMAGES.png.path);
      const res = await client(url, (await createCustomerFixture()).apiKey).createReport({
        context: 'damage_report',
        evidence: { text: 'A cracked window pane in the lobby.', images: [{ url: imageUrl }] },
      });
      expect(res.status, res.text).to.equal(201);

      // The generator: reached only through the proxy, which alone knows its name.
      expect(gemini.requests).to.have.lengthOf(1);
      expect(sentImages(gemini.requests[0])).to.have.lengthOf(1);
      expect(proxy.seen.filter((s) => s.target === `${GEMINI_HOST}:${geminiPort}`).length).to.be.at.least(1);
      expect(proxy.seen.every((s) => s.kind === 'connect')).to.equal(true);
      // The image: fetched from its host, and never asked of the proxy.
      expect(host.requests.map((r) => r.path)).to.include(IMAGES.png.path);
      const imagePort = new URL(imageUrl).port;
      expect(proxy.seen.filter((s) => s.target.endsWith(`:${imagePort}`))).to.deep.equal([]);
    });
  });

  /** One report asked of a service whose generator is behind `target`; its answer, time, and log line's reason. */
  async function generateThrough(target: string, models: string): Promise<{ status: number; ms: number; reason: unknown; connects: () => number }> {
    const url = await start({
      REPORT_GENERATOR: 'gemini',
      GEMINI_API_KEY: 'test-key-egress-proxy-0123456789',
      GEMINI_BASE_URL: `https://${target}`,
      GEMINI_MODEL: models,
    });
    // The start-up lookups (R42) went through the proxy too: count from here.
    proxy.seen.length = 0;
    const linesBefore = service.server!.stdoutLines.length;
    const started = performance.now();
    const res = await client(url, (await createCustomerFixture()).apiKey).createReport({
      context: 'property_maintenance',
      evidence: { text: 'The lift stops between floors.' },
    });
    const ms = performance.now() - started;
    expect(res.status, res.text).to.equal(503);
    expect((res.body as { error: { code: string } }).error.code).to.equal('report_generation_unavailable');
    const failure = await service.server!.waitForLog('dependency failure', 10_000, linesBefore);
    expect(failure).to.include({ requestId: res.headers['x-request-id'], dependency: 'generator' });
    return { status: res.status, ms, reason: failure.reason, connects: () => proxy.seen.filter((s) => s.target === target).length };
  }

  it('a proxy that refuses the generator\'s tunnel (407) is 503 report_generation_unavailable, logged as proxy_refused, asked once: a configuration fault, the same for every model (R42, R45)', async () => {
    const target = 'gemini-refused-by-the-proxy.test:443';
    proxy.answerConnect(target, 407);
    const { reason, connects } = await generateThrough(target, 'gemini-proxy-e2e-flash,gemini-proxy-e2e-lite');
    expect(reason).to.equal('proxy_refused');
    expect(connects()).to.equal(1);
  });

  it('a proxy that cannot reach Google (502 to the tunnel) is a connection never made: unreachable, every model asked and the last once more (R42, R45)', async () => {
    // A name the proxy does not know: it answers the CONNECT 502.
    const target = 'gemini-unknown-to-the-proxy.test:443';
    const { reason, connects } = await generateThrough(target, 'gemini-proxy-e2e-flash,gemini-proxy-e2e-lite');
    expect(reason).to.equal('unreachable');
    expect(connects()).to.equal(3);
  });

  // Node 24's bundled undici leaves such a request queued and connects again at once, without
  // end: thousands of CONNECTs a second until the deadline (30 s), and on after it
  // (nodejs/undici#3897). The generator's own fetch (src/shared/egress-proxy.ts) fails it.
  it('a proxy that closes the tunnel\'s connection without answering: unreachable at once, every model asked and the last once more, and no CONNECT after the answer (R33, R42, R45)', async () => {
    const target = 'gemini-closed-by-the-proxy.test:443';
    proxy.answerConnect(target, 'close');
    const { reason, ms, connects } = await generateThrough(target, 'gemini-proxy-e2e-flash,gemini-proxy-e2e-lite');
    expect(reason).to.equal('unreachable');
    expect(ms, 'well within GENERATOR_TIMEOUT_MS (30 s)').to.be.below(5_000);
    expect(connects()).to.equal(3);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(connects(), 'no CONNECT once the request was answered').to.equal(3);
  });

  /**
   * A collector (`tls`: HTTPS with the fixture certificate, else HTTP) reached by `host`, a name
   * only the proxy resolves; the service started with `env` and the collector's endpoint sends
   * one report, and its span export must reach the collector. Returns the collector's port.
   */
  async function exportThroughProxy(host: string, tls: boolean, env: Record<string, string>): Promise<number> {
    const received: string[] = [];
    const answer = (req: IncomingMessage, res: ServerResponse): void => {
      received.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    };
    const collector: Server = tls ? createHttpsServer({ cert: TLS_CERT, key: TLS_KEY }, answer) : createServer(answer);
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      const port = (collector.address() as AddressInfo).port;
      const url = await start({
        REPORT_GENERATOR: 'offline',
        OTEL_EXPORTER_OTLP_ENDPOINT: `${tls ? 'https' : 'http'}://${host}:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...env,
      });
      const res = await client(url, (await createCustomerFixture()).apiKey).createReport({
        context: 'property_maintenance',
        evidence: { text: 'The lift stops between floors.' },
      });
      expect(res.status, res.text).to.equal(201);
      await until('a span export reached the collector', () => received.includes('POST /v1/traces'));
      return port;
    } finally {
      collector.closeAllConnections();
      await new Promise<void>((r) => collector.close(() => r()));
    }
  }

  it('sends OTLP exports through the proxy', async () => {
    const port = await exportThroughProxy(COLLECTOR_HOST, false, {});
    expect(proxy.seen).to.deep.include({ kind: 'absolute', target: `${COLLECTOR_HOST}:${port}`, url: `http://${COLLECTOR_HOST}:${port}/v1/traces` });
  });

  it('keeps OTEL_EXPORTER_OTLP_CERTIFICATE for exports through the proxy: a collector of a private CA is reached over TLS (R41, R45)', async () => {
    // The collector's certificate is for the fixture name and signed by the fixture CA, which
    // the process is told of only by OTEL_EXPORTER_OTLP_CERTIFICATE (no NODE_EXTRA_CA_CERTS).
    const port = await exportThroughProxy(GEMINI_HOST, true, { OTEL_EXPORTER_OTLP_CERTIFICATE: join(FIXTURES, 'ca.crt') });
    expect(proxy.seen).to.deep.include({ kind: 'connect', target: `${GEMINI_HOST}:${port}` });
  });

  /** Vertex AI with a key file (its token requests go to oauth2.googleapis.com), started with `env`; then one report. */
  async function reportWithKeyFile(file: string, env: Record<string, string> = {}) {
    const key = serviceAccountKey('ers-proxy-e2e', 'https://oauth2.googleapis.com/token');
    const keyFile = join(service.home, file);
    await writeFile(keyFile, key.json, { mode: 0o600 });
    const url = await start({
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_CLOUD_PROJECT: 'ers-proxy-e2e',
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      GEMINI_MODEL: 'gemini-proxy-e2e-flash',
      ...env,
    });
    const linesBefore = service.server!.stdoutLines.length;
    const res = await client(url, (await createCustomerFixture()).apiKey).createReport({
      context: 'property_maintenance',
      evidence: { text: 'The lift stops between floors.' },
    });
    return { key, res, linesBefore };
  }

  it("sends a key file's token request through the proxy (here refused: 503 report_generation_unavailable)", async () => {
    const { key, res, linesBefore } = await reportWithKeyFile('service-account.json');
    expect(res.status, res.text).to.equal(503);
    expect(proxy.seen).to.deep.include({ kind: 'connect', target: 'oauth2.googleapis.com:443' });
    // The refused tunnel is named as the docs say: the token endpoint unreachable, with the code.
    const failure = await service.server!.waitForLog('dependency failure', 10_000, linesBefore);
    expect(failure).to.include({ requestId: res.headers['x-request-id'], reason: 'credentials_token_endpoint_unreachable' });
    expect(JSON.stringify(failure)).to.include('ERR_PROXY_TUNNEL');
    const everything = `${service.server!.stdoutLines.join('\n')}\n${service.server!.stderr()}`;
    expect(everything).not.to.include(key.privateKeyId);
    expect(everything).not.to.include(proxy.url);
  });

  it("keeps a key file's token request out of the proxy when NO_PROXY names its host, in any case (Node's matching, not gaxios's)", async () => {
    const { res, linesBefore } = await reportWithKeyFile('service-account-no-proxy.json', { NO_PROXY: 'OAUTH2.GOOGLEAPIS.COM' });
    // Sent directly, the token request fails (this machine reaches no outside host): a 503 for
    // the token endpoint, and the proxy was never asked for it.
    expect(res.status, res.text).to.equal(503);
    const failure = await service.server!.waitForLog('dependency failure', 10_000, linesBefore);
    expect(failure).to.include({ requestId: res.headers['x-request-id'], reason: 'credentials_token_endpoint_unreachable' });
    expect(proxy.seen.map((seen) => seen.target)).not.to.include('oauth2.googleapis.com:443');
  });
});
