// R52: a saturated instance (a request would wait longer than ADMISSION_MAX_QUEUE_MS before
// its work starts) refuses new API requests before authentication, within milliseconds, with
// 503 and Retry-After: report_generation_unavailable for a creation, current_usage_unavailable
// for a usage read. /healthz, /readyz and /metrics are never shed. Saturation is made here with
// a concurrency ceiling of 2 (ADMISSION_MAX_CONCURRENCY) and creations whose image host answers
// slowly (a request holds its place while it fetches); with a tiny ADMISSION_MAX_QUEUE_MS
// nothing may queue. A request waiting on the generator, by contrast, lends its place.
import { expect } from 'chai';
import { expectApiError } from '../support/expect-api-error.ts';
import { send, type TestResponse } from '../support/http-client.ts';
import { useService } from '../support/use-service.ts';
import { scrape, seriesKey } from '../support/observability/prometheus.ts';
import { bodyNumber, customerTotals, REPORTS_PATH, waitFor } from '../support/reports.ts';
import { ImageServer, serve, type Route } from '../support/images/image-server.ts';
import { PNG } from '../support/images/fixtures.ts';

const HOLD_MS = 2_000;
const STEP_MS = 500;
const RUNNING = seriesKey('ers_admission_requests', { state: 'running' });
const QUEUED = seriesKey('ers_admission_requests', { state: 'queued' });

/** A PNG answered after `ms` (within the image deadline, 5 s): its creation holds a place meanwhile. */
const answeredAfter =
  (ms: number): Route =>
  (req, res, server) =>
    void setTimeout(() => serve(PNG, 'image/png')(req, res, server), ms);

/** Inside a describe, above useService: an image host whose /slow.png takes `ms`. */
function useSlowImageHost(ms: number): { body(n: number): Record<string, unknown> } {
  let host: ImageServer | undefined;
  before(async () => {
    host = await new ImageServer({ '/slow.png': answeredAfter(ms) }).listen();
  });
  after(async () => host?.close());
  return {
    body: (n) => {
      const { evidence } = bodyNumber(n) as { evidence: Record<string, unknown> };
      return { context: 'damage_report', evidence: { ...evidence, images: [{ url: host?.url('/slow.png') }] } };
    },
  };
}
/** "Within milliseconds", with room for a loaded machine: far below the time a creation takes. */
const REFUSAL_BOUND_MS = 400;
const SATURATED = seriesKey('ers_admission_rejections_total', { reason: 'saturated' });

async function timed<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await promise;
  return { value, ms: performance.now() - started };
}

function expectShed(answer: { value: TestResponse; ms: number }, code: 'report_generation_unavailable' | 'current_usage_unavailable'): void {
  expectApiError(answer.value, code);
  expect(answer.value.headers['retry-after']).to.match(/^[1-9]\d*$/);
  expect(answer.ms, 'refused within milliseconds').to.be.below(REFUSAL_BOUND_MS);
}

describe('a saturated instance sheds API requests before authentication (R52)', () => {
  const slow = useSlowImageHost(HOLD_MS);
  const app = useService({
    ADMISSION_MAX_CONCURRENCY: '2',
    ADMISSION_MAX_QUEUE_MS: '1',
    MAX_IN_FLIGHT_PER_CUSTOMER: '0',
    REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
    METRICS_PORT: '0',
  });

  it('excess creations, usage reads and report reads get 503 with Retry-After at once; health, readiness and metrics answer 200; nothing is counted for the refused', async () => {
    const saturatedBefore = (await scrape(app.service.metricsUrl as string)).samples.get(SATURATED) ?? 0;
    const held = [app.client.create(slow.body(1)), app.client.create(slow.body(2))];
    await new Promise((resolve) => setTimeout(resolve, 300));

    const creations = await Promise.all(Array.from({ length: 8 }, (_, i) => timed(app.client.create(bodyNumber(10 + i)))));
    for (const answer of creations) expectShed(answer, 'report_generation_unavailable');
    const reads = await Promise.all(Array.from({ length: 3 }, () => timed(app.client.usage())));
    for (const answer of reads) expectShed(answer, 'current_usage_unavailable');
    // Before authentication: no key, or a key that cannot be one, is refused the same way.
    expectShed(await timed(send(app.service.url, 'POST', REPORTS_PATH, { body: bodyNumber(20) })), 'report_generation_unavailable');
    expectShed(await timed(send(app.service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': 'junk' } })), 'current_usage_unavailable');
    // Reading a report back is free (R54) but still shed like the rest.
    expectShed(await timed(send(app.service.url, 'GET', `${REPORTS_PATH}/00000000-0000-4000-8000-000000000000`)), 'report_generation_unavailable');

    // Never shed, while the two creations still hold the instance.
    expect((await send(app.service.url, 'GET', '/healthz')).status).to.equal(200);
    expect((await send(app.service.url, 'GET', '/readyz')).status).to.equal(200);
    const metrics = await scrape(app.service.metricsUrl as string);
    expect(metrics.status).to.equal(200);
    expect((metrics.samples.get(SATURATED) ?? 0) - saturatedBefore, 'ers_admission_rejections_total{reason="saturated"}').to.equal(14);
    // Counted as refusals only, never as 503s of the application (which the fail-closed alerts read).
    expect(metrics.samples.get(seriesKey('ers_http_requests_total', { operation: 'getCurrentUsage', status: '503', code: 'current_usage_unavailable' }))).to.equal(undefined);

    for (const answer of await Promise.all(held)) expect(answer.status).to.equal(201);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 2, units: 2, claims: 0 });
    // The places are free again.
    expect((await app.client.create(bodyNumber(30))).status).to.equal(201);
    expect((await app.client.usage()).status).to.equal(200);
  });
});

describe('a burst within ADMISSION_MAX_QUEUE_MS waits its turn instead of being refused (R52)', () => {
  const slow = useSlowImageHost(STEP_MS);
  const app = useService({
    ADMISSION_MAX_CONCURRENCY: '2',
    ADMISSION_MAX_QUEUE_MS: '60000',
    MAX_IN_FLIGHT_PER_CUSTOMER: '0',
    REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32',
  });

  it('6 creations against a concurrency of 2 all succeed, in three waves', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => timed(app.client.create(slow.body(i)))));
    expect(answers.map((answer) => answer.value.status)).to.deep.equal([201, 201, 201, 201, 201, 201]);
    const ms = answers.map((answer) => answer.ms).sort((a, b) => a - b);
    // Two at a time: the last two started only after two waves had finished.
    expect(ms[5], 'the last of three waves').to.be.at.least(3 * STEP_MS - 100);
  });
});

describe('a request waiting on the generator lends its admission place (R52)', () => {
  const GENERATOR_MS = 3_000;
  const app = useService({
    ADMISSION_MAX_CONCURRENCY: '2',
    ADMISSION_MAX_QUEUE_MS: '60000',
    MAX_IN_FLIGHT_PER_CUSTOMER: '0',
    OFFLINE_GENERATOR_DELAY_MS: String(GENERATOR_MS),
    METRICS_PORT: '0',
  });

  it('8 creations against a concurrency of 2 all wait on the generator at once: the queue empties long before the first answer', async () => {
    const settled: boolean[] = [];
    const creations = Array.from({ length: 8 }, (_, i) =>
      app.client.create(bodyNumber(i)).finally(() => {
        settled[i] = true;
      }),
    );
    // Without lending, six would queue until the first two answered, GENERATOR_MS from now.
    await waitFor(async () => {
      const { samples } = await scrape(app.service.metricsUrl as string);
      return samples.get(QUEUED) === 0 && (samples.get(RUNNING) ?? 0) === 0;
    }, GENERATOR_MS - 1_000);
    expect(settled.filter(Boolean), 'no creation answered yet').to.have.length(0);
    const answers = await Promise.all(creations);
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(8).fill(201));
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 8, units: 8, claims: 0 });
  });
});
