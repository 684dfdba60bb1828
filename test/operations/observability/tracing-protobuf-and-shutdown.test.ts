// R41: the standard OTEL_* variables are honoured. Without OTEL_EXPORTER_OTLP_PROTOCOL the
// exporter speaks OTLP/HTTP protobuf (the specification's default) to <endpoint>/v1/traces;
// OTEL_SERVICE_NAME names the service. And SIGTERM loses no trace: spans still waiting for
// their batch (a long OTEL_BSP_SCHEDULE_DELAY) are exported before the process exits.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { client } from '../../support/http-client.ts';
import { startFakeGemini, type FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/observability/otlp-receiver.ts';
import { startTracedService, type TracedService } from '../../support/observability/traced-service.ts';

describe('traces: default protocol, service name, and export on SIGTERM (R41)', function () {
  this.timeout(60_000);
  let receiver: OtlpReceiver;
  let gemini: FakeGemini;
  let service: TracedService | undefined;

  before(async () => {
    receiver = await startOtlpReceiver();
    gemini = await startFakeGemini();
  });
  after(async () => {
    service?.process.kill();
    await receiver?.close();
    await gemini?.stop();
  });

  it('http/protobuf by default, at <endpoint>/v1/traces, named by OTEL_SERVICE_NAME; queued spans leave on SIGTERM', async () => {
    service = await startTracedService(gemini, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.endpoint}/`,
      OTEL_SERVICE_NAME: 'ers-protobuf-test-service',
      // Far longer than the test: only the shutdown can send this batch.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const customer = await createCustomerFixture();
    const res = await client(service.url, customer.apiKey).createReport({ context: 'field_inspection', evidence: { text: 'Loose handrail.' } });
    expect(res.status).to.equal(201);
    expect(receiver.exports, 'nothing is exported before the batch is due').to.have.length(0);

    expect(await service.stop(), 'exit code').to.equal(0);
    service = undefined;
    expect(receiver.exports.length, 'the queued spans were exported on SIGTERM').to.be.greaterThan(0);
    for (const exported of receiver.exports) {
      expect(exported.path).to.equal('/v1/traces');
      expect(exported.contentType).to.equal('application/x-protobuf');
    }
    const bytes = Buffer.concat(receiver.exports.map((e) => e.body)).toString('latin1');
    // Protobuf carries strings as their UTF-8 bytes: the span names and the service name are in it.
    for (const name of ['POST /v1/evidence/reports', 'ers.step.1_authenticate', 'ers.step.8_generate', 'ers.step.11_respond', 'ers.generate', 'ers-protobuf-test-service']) {
      expect(bytes, name).to.include(name);
    }
  });
});

describe('traces: a collector that cannot be reached (R41)', function () {
  this.timeout(60_000);
  let gemini: FakeGemini;
  let service: TracedService | undefined;
  before(async () => {
    gemini = await startFakeGemini();
  });
  after(async () => {
    service?.process.kill();
    await gemini?.stop();
  });

  it('requests still succeed, the failure is logged once with a fixed reason (never the endpoint), and SIGTERM still exits 0', async () => {
    const closed = await startOtlpReceiver();
    const endpoint = closed.endpoint;
    await closed.close(); // nothing listens there any more
    // A short exporter timeout, so that its retries give up within the test.
    service = await startTracedService(gemini, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
    const customer = await createCustomerFixture();
    for (let i = 0; i < 3; i++) {
      const res = await client(service.url, customer.apiKey).createReport({ context: 'field_inspection', evidence: { text: `Loose handrail ${i}.` } });
      expect(res.status).to.equal(201);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const logLines = service.logLines;
    const failures = () => logLines().filter((l) => l.msg === 'dependency failure');
    for (let i = 0; i < 100 && failures().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const stopping = performance.now();
    expect(await service.stop(), 'exit code').to.equal(0);
    expect(performance.now() - stopping, 'SIGTERM waits a bounded time for the collector').to.be.below(8000);
    service = undefined;
    expect(failures(), 'one line at most a minute').to.have.length(1);
    expect(failures()[0]).to.deep.include({ dependency: 'trace_collector', reason: 'export_failed' });
    expect(JSON.stringify(logLines())).not.to.include(endpoint.replace('http://', ''));
  });
});

describe('traces: a collector that hangs at SIGTERM (R41, R35)', function () {
  this.timeout(60_000);
  let gemini: FakeGemini;
  let service: TracedService | undefined;
  let hanging: Server;
  before(async () => {
    gemini = await startFakeGemini();
    // Takes connections and requests, answers nothing.
    hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    service?.process.kill();
    await gemini?.stop();
    hanging.closeAllConnections();
    hanging.close();
  });

  it('the spans still queued are waited for a bounded time within the shutdown bound, and their loss is logged', async () => {
    const { port } = hanging.address() as AddressInfo;
    service = await startTracedService(gemini, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      // Only the shutdown sends this batch, to a collector that never answers.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const customer = await createCustomerFixture();
    const res = await client(service.url, customer.apiKey).createReport({ context: 'field_inspection', evidence: { text: 'Loose handrail.' } });
    expect(res.status).to.equal(201);
    const logLines = service.logLines;
    expect(await service.stop(), 'exit code').to.equal(0);
    service = undefined;
    const failures = logLines().filter((l) => l.msg === 'dependency failure');
    expect(failures, 'the spans the collector did not take are logged as lost').to.have.length(1);
    expect(failures[0]).to.deep.include({ dependency: 'trace_collector', reason: 'timeout' });
  });
});
