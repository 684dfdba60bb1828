// R41: without OTEL_EXPORTER_OTLP_ENDPOINT nothing of the OpenTelemetry
// SDK is loaded, and without METRICS_PORT neither is prom-client: the request path pays for
// neither. The real entry point runs with a preload that logs every package it loads, serves a
// POST, and the list is read. With the endpoint, the SDK and only the chosen exporter load.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createCustomerFixture, testDatabaseUrl } from '../../support/database.ts';
import { client } from '../../support/http-client.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';
import { serviceEnv } from '../../support/reports.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/observability/otlp-receiver.ts';

const PRELOAD = fileURLToPath(new URL('../../support/observability/log-loaded-packages.ts', import.meta.url));

/** The packages the service loaded up to and including one POST. */
async function packagesAfterOnePost(env: Record<string, string>): Promise<string[]> {
  let server: ServerProcess | undefined;
  try {
    server = startServerProcess(
      await serviceEnv({
        DATABASE_URL: testDatabaseUrl(),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        NODE_OPTIONS: `--import=${PRELOAD}`,
        ...env,
      }),
    );
    const listening = await server.waitForLog('listening', 30_000);
    const customer = await createCustomerFixture();
    const res = await client(String(listening.url), customer.apiKey).createReport({ context: 'field_inspection', evidence: { text: 'Loose handrail.' } });
    expect(res.status).to.equal(201);
    server.child.kill('SIGTERM');
    await server.exited;
    const packages = [...server.stderr().matchAll(/^loaded-package (\S+)$/gm)].map((m) => m[1] as string);
    expect(packages, 'the preload saw the packages of the service').to.include.members(['koa', 'pg']);
    return packages;
  } finally {
    server?.kill();
  }
}

describe('nothing of tracing or metrics is loaded unless configured (R40, R41)', function () {
  this.timeout(90_000);
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver?.close());

  it('neither METRICS_PORT nor OTEL_EXPORTER_OTLP_ENDPOINT: no @opentelemetry package and no prom-client in the process', async () => {
    const packages = await packagesAfterOnePost({});
    expect(packages.filter((p) => p.startsWith('@opentelemetry/') || p === 'prom-client')).to.deep.equal([]);
  });

  it('METRICS_PORT only: prom-client is loaded, the OpenTelemetry SDK and exporters are not', async () => {
    const packages = await packagesAfterOnePost({ METRICS_PORT: '0' });
    expect(packages).to.include('prom-client');
    // prom-client itself requires @opentelemetry/api (for exemplars): the API only, no SDK.
    expect(packages.filter((p) => p.startsWith('@opentelemetry/') && p !== '@opentelemetry/api')).to.deep.equal([]);
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT set: the SDK and the exporter of the chosen protocol load, not the other; prom-client does not', async () => {
    const packages = await packagesAfterOnePost({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(packages).to.include.members(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http']);
    expect(packages).not.to.include('@opentelemetry/exporter-trace-otlp-proto');
    expect(packages).not.to.include('prom-client');
  });

  it('OTEL_SDK_DISABLED=true wins over the endpoint: nothing of OpenTelemetry is loaded', async () => {
    const packages = await packagesAfterOnePost({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SDK_DISABLED: 'true' });
    expect(packages.filter((p) => p.startsWith('@opentelemetry/'))).to.deep.equal([]);
  });
});
