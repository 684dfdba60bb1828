// R50 against the whole service (`node src/main.ts`, default libuv pool of 4 threads) in a
// network namespace whose only nameserver (127.0.0.1:53, /etc/resolv.conf bind-mounted by the
// launcher) reads every query and never answers. Images on random host names must cost their
// own requests the image timeout (503 remote_evidence_image_unavailable) and cost nobody else
// anything: text-only requests keep their latency (p50 against a baseline taken in the same run,
// with a generous bound), an image by address literal is still fetched and decoded (sharp needs
// one of the pool's threads), and an image on a name the nameserver does answer is fetched too
// (getaddrinfo would queue it behind the lookups that hang, two or so at a time on libuv's pool).
// Started by ../dns-blackhole-in-namespace.test.ts.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { client } from '../../support/http-client.ts';
import { createCustomerFixture, testDatabaseUrl } from '../../support/database.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';
import { PNG } from '../../support/images/fixtures.ts';
import { IN_E2E_NETNS } from '../../support/e2e/netns.ts';

const BLACKHOLE = fileURLToPath(new URL('../../support/e2e/dns-blackhole.ts', import.meta.url));
/** The one name the nameserver answers (127.0.0.1). */
const GOOD_NAME = 'good.example.com';
const IMAGE_TIMEOUT_MS = 2_000;
const STALLED_REQUESTS = 8;
const IMAGES_PER_REQUEST = 4;
const TEXT_REQUESTS = 20;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('a nameserver that never answers costs only the requests that named its hosts (R50)', function () {
  this.timeout(120_000);
  let blackhole: ChildProcess;
  let queries = 0;
  let images: ImageServer;
  let server: ServerProcess;
  let api: ReturnType<typeof client>;

  before(async () => {
    if (!IN_E2E_NETNS) throw new Error('this file runs only inside the network namespace: run test/e2e/dns-blackhole-in-namespace.test.ts');
    expect(readFileSync('/etc/resolv.conf', 'utf8').trim(), 'the namespace resolv.conf').to.equal('nameserver 127.0.0.1');
    blackhole = spawn(process.execPath, [BLACKHOLE, GOOD_NAME], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      blackhole.once('exit', (code) => reject(new Error(`the blackhole nameserver exited (${code})`)));
      blackhole.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) {
          if (line === 'ready') resolve();
          if (line === 'query') queries++;
        }
      });
    });
    images = await new ImageServer({ '/x.png': serve(PNG, 'image/png') }).listen();
    server = startServerProcess({
      DATABASE_URL: testDatabaseUrl(),
      PORT: '0',
      LOG_LEVEL: 'info',
      REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
      IMAGE_FETCH_TIMEOUT_MS: String(IMAGE_TIMEOUT_MS),
      RATE_LIMIT_REQUESTS: '100000',
    });
    const { url } = (await server.waitForLog('listening', 60_000)) as { url: string };
    const customer = await createCustomerFixture();
    api = client(url, customer.apiKey);
  });
  after(async () => {
    server?.kill();
    await server?.exited;
    await images?.close();
    blackhole?.kill('SIGTERM');
  });

  const text = (n: number) => ({ context: 'field_inspection', evidence: { text: `Water stain on the ceiling, photo ${n}.` } });

  it('random hosts: 503 within the image timeout; text keeps its latency; a literal address and an answering name are still fetched and decoded', async () => {
    // Baseline, and a warm service (first image decode loads sharp).
    expect((await api.createReport({ context: 'field_inspection', evidence: { images: [{ url: images.url('/x.png') }] } })).status).to.equal(201);
    const baseline: number[] = [];
    for (let n = 0; n < TEXT_REQUESTS; n++) {
      const { value, ms } = await timed(() => api.createReport(text(n)));
      expect(value.status).to.equal(201);
      baseline.push(ms);
    }

    const randomHost = () => `http://h${randomBytes(6).toString('hex')}.example.com/x.png`;
    const stalled = Array.from({ length: STALLED_REQUESTS }, () =>
      timed(() => api.createReport({ context: 'field_inspection', evidence: { images: Array.from({ length: IMAGES_PER_REQUEST }, () => ({ url: randomHost() })) } })),
    );
    // While every one of those lookups hangs: text requests, then an image by literal address.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during: number[] = [];
    for (let n = 0; n < TEXT_REQUESTS; n++) {
      const { value, ms } = await timed(() => api.createReport(text(100 + n)));
      expect(value.status).to.equal(201);
      during.push(ms);
    }
    const literal = await timed(() => api.createReport({ context: 'field_inspection', evidence: { text: 'Literal.', images: [{ url: images.url('/x.png') }] } }));
    const named = await timed(() => api.createReport({ context: 'field_inspection', evidence: { images: [{ url: `http://${GOOD_NAME}:${images.port}/x.png` }] } }));
    const results = await Promise.all(stalled);
    const seen = `baseline p50 ${median(baseline).toFixed(1)} ms, during p50 ${median(during).toFixed(1)} ms, literal ${literal.ms.toFixed(0)} ms, named ${named.ms.toFixed(0)} ms, stalled ${results.map((r) => r.ms.toFixed(0)).join(' ')} ms, queries ${queries}`;

    for (const { value, ms } of results) {
      expect(value.status, `${value.text} (${seen})`).to.equal(503);
      expect((value.body as { error: { code: string } }).error.code).to.equal('remote_evidence_image_unavailable');
      expect(ms, `within the image timeout, plus a second (${seen})`).to.be.below(IMAGE_TIMEOUT_MS + 1_000);
    }
    // Generous: a loaded machine may double a median, not make it wait for a lookup.
    expect(median(during), `text p50 during the stall (${seen})`).to.be.below(3 * median(baseline) + 100);
    expect(literal.value.status, `${literal.value.text} (${seen})`).to.equal(201);
    expect(literal.ms, `the literal image did not wait for a thread held by a lookup (${seen})`).to.be.below(IMAGE_TIMEOUT_MS);
    expect(named.value.status, `an answering name during the stall: ${named.value.text} (${seen})`).to.equal(201);
    expect(images.requests.some((r) => r.headers.host === `${GOOD_NAME}:${images.port}`), 'fetched by name').to.equal(true);
    // Every image's lookup reached the nameserver at once: none waited for a thread of the pool
    // (getaddrinfo would have run four at a time, the pool's size).
    expect(queries, `queries the nameserver swallowed (${seen})`).to.be.at.least(STALLED_REQUESTS * IMAGES_PER_REQUEST);
  });
});
