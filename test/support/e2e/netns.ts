// Shared set-up of the hostile-URL files that run inside a loopback-only network namespace
// (test/e2e/netns/*.netns.ts, started by ../hostile-urls-in-namespace.test.ts): the whole
// service on its own embedded database, listeners on the loopback ports the URLs name, and a
// log of every outgoing TCP connection of this process, so that "no connection to a refused
// address" is checked twice: by the listeners and at the socket.
import net from 'node:net';
import { expect } from 'chai';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { countCustomerRows, createCustomerFixture, type CustomerFixture } from '../database.ts';
import { client, type TestResponse } from '../http-client.ts';
import { startTestService, type TestService } from '../service.ts';
import { startFakeGemini, type FakeGemini } from '../generation/fake-gemini-server.ts';
import { geminiEnv } from './gemini-service.ts';
import { PortGuard } from '../images/port-guard.ts';
import { errorOf, expectNoInternalDetail } from './leaks.ts';
import { expectApiError } from '../expect-api-error.ts';
import type { ServiceOutcome } from '../hostile-urls.ts';

/** Set by the parent test: this process runs where only loopback exists. */
export const IN_E2E_NETNS = process.env.E2E_NETNS === '1';

export const GUARDED_PORTS = [21, 22, 25, 53, 80, 443, 1900, 2375, 2379, 3306, 5432, 6379, 8000, 8080, 8443, 9200, 11211, 27017];


export interface Attempt {
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly path: string | undefined;
}

/** Records every net.Socket#connect of this process (plain, TLS, pg, undici all end there). */
export function logConnections(): { attempts: Attempt[]; restore(): void } {
  const attempts: Attempt[] = [];
  const original = net.Socket.prototype.connect;
  const patched = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    if (typeof first === 'object' && first !== null) {
      const o = first as { host?: string; port?: number | string; path?: string | null };
      attempts.push({ host: o.host, port: o.port === undefined ? undefined : Number(o.port), path: o.path ?? undefined });
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      attempts.push({ host: typeof args[1] === 'string' ? args[1] : undefined, port: Number(first), path: undefined });
    } else {
      attempts.push({ host: undefined, port: undefined, path: String(first) });
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  net.Socket.prototype.connect = patched as typeof original;
  return { attempts, restore: () => void (net.Socket.prototype.connect = original) };
}

/** The explicit ports the URLs name (a guard listens on each, besides GUARDED_PORTS). */

/** Host, address and port strings of a URL: what a response may not repeat. */
export function secretsOf(url: string): string[] {
  const secrets: string[] = [];
  try {
    const parsed = new URL(url);
    secrets.push(parsed.hostname, parsed.hostname.replace(/^\[|\]$/g, ''), parsed.host);
    if (parsed.port.length >= 2) secrets.push(`:${parsed.port}`);
  } catch {
    // Unparsable: no host to repeat.
  }
  return secrets.filter((s) => s.length >= 3);
}

/** The ruled outcome for the URL at `index`: 400 with its pointer (R8), or 422 / 503 with {imageIndex} (R23). */
export function expectOutcomeOf(res: TestResponse, outcome: ServiceOutcome, index: number): void {
  if (outcome === 'payload') {
    expectApiError(res, 'invalid_request_payload');
    expect(errorOf(res).details?.pointer).to.equal(`/evidence/images/${index}/url`);
    return;
  }
  const allowed: ErrorCode[] =
    outcome === 'rejected' ? ['remote_evidence_image_rejected'] : ['remote_evidence_image_rejected', 'remote_evidence_image_unavailable'];
  expect(allowed).to.include(errorOf(res).code);
  expectApiError(res, errorOf(res).code as ErrorCode);
  expect(errorOf(res).details).to.deep.equal({ imageIndex: index });
}

export interface HostileHarness {
  readonly service: TestService;
  readonly gemini: FakeGemini;
  readonly guard: PortGuard;
  readonly customer: CustomerFixture;
  /** Ports this process may connect to: the service, its database, the fake Gemini, extra. */
  readonly allowedPorts: Set<number>;
  readonly connections: { attempts: Attempt[]; restore(): void };
  /** Posts `urls` as the evidence images and checks the outcome for the URL at `index`. */
  expectOutcome(urls: readonly string[], outcome: ServiceOutcome, index?: number, secrets?: readonly string[]): Promise<TestResponse>;
  /**
   * No guard saw a connection; every connection attempt went to an allowed local port; the
   * harness customer has no report, unit or claim; the generator saw `generatorCalls` calls.
   */
  check(generatorCalls?: number): Promise<void>;
}

/**
 * Installs the harness around a describe block: guards first (so a wrong fetch has somewhere
 * to land and be seen), then the service with `env` (REMOTE_IMAGE_ALLOW_CIDRS empty unless
 * given), the Gemini generator on a local fake (to count generator calls) and the spy.
 */
export function hostileHarness(env: Record<string, string> = {}, extraGuardPorts: readonly number[] = []): () => HostileHarness {
  let harness: HostileHarness | undefined;
  before(async function () {
    this.timeout(60_000);
    if (!IN_E2E_NETNS) throw new Error('hostile-URL files run only inside the network namespace: run test/e2e/hostile-urls-in-namespace.test.ts');
    const guard = await new PortGuard().listen([...GUARDED_PORTS, ...extraGuardPorts]);
    expect(guard.unguarded, 'ports that could not be guarded inside the namespace').to.deep.equal([]);
    const gemini = await startFakeGemini();
    const service = await startTestService({
      REMOTE_IMAGE_ALLOW_CIDRS: '',
      IMAGE_FETCH_TIMEOUT_MS: '2000',
      ...geminiEnv(gemini),
      ...env,
    });
    const customer = await createCustomerFixture();
    const allowedPorts = new Set([
      Number(new URL(service.url).port),
      Number(new URL(gemini.baseUrl).port),
      Number(new URL(process.env.TEST_DATABASE_URL ?? '').port),
    ]);
    const connections = logConnections();
    harness = {
      service,
      gemini,
      guard,
      customer,
      allowedPorts,
      connections,
      async expectOutcome(urls, outcome, index = 0, secrets = []) {
        const res = await client(service.url, customer.apiKey).createReport({ context: 'field_inspection', evidence: { images: urls.map((u) => ({ url: u })) } });
        try {
          expectOutcomeOf(res, outcome, index);
          expectNoInternalDetail(res, [...urls.flatMap(secretsOf), ...secrets]);
        } catch (error) {
          throw new Error(`${JSON.stringify(urls)} [${index}] -> ${res.status} ${res.text}\n${(error as Error).message}`, { cause: error });
        }
        return res;
      },
      async check(generatorCalls = 0) {
        await new Promise((resolve) => setImmediate(resolve));
        expect(guard.seen, 'connections seen by the port guards').to.deep.equal([]);
        const unexpected = connections.attempts.filter(
          (a) => a.path !== undefined || a.port === undefined || !allowedPorts.has(a.port) || !['127.0.0.1', 'localhost', undefined].includes(a.host),
        );
        expect(unexpected, 'connection attempts beyond the service, its database and the fake Gemini').to.deep.equal([]);
        expect(gemini.requests.length, 'generator calls').to.equal(generatorCalls);
        const rows = await countCustomerRows(customer.customerId);
        expect([rows.evidence_report, rows.usage_record, rows.idempotency_record], 'reports, units, claims').to.deep.equal([0, 0, 0]);
      },
    };
  });
  after(async () => {
    harness?.connections.restore();
    await harness?.service.close();
    await harness?.gemini.stop();
    await harness?.guard.close();
  });
  return () => {
    if (harness === undefined) throw new Error('the hostile harness did not start');
    return harness;
  };
}
