// R44, end to end through `node src/main.ts` (what `npm start` runs): Vertex AI with Application
// Default Credentials as google-auth-library resolves them, against local stand-ins speaking the
// real protocols: a metadata server at GCE_METADATA_HOST (as on Cloud Run or GKE) that issues the
// token, a key file whose token endpoint cannot be reached, and a Vertex AI endpoint at
// GEMINI_BASE_URL (the strict fake Gemini).
import { writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../support/haproxy.ts';
import { createCustomerFixture, testEm } from '../support/database.ts';
import { client } from '../support/http-client.ts';
import { useServiceProcess } from '../support/e2e/service-process.ts';
import { startFakeGemini, type FakeGemini } from '../support/generation/fake-gemini-server.ts';
import { serviceAccountKey, startMetadataServer, type AuthServer } from '../support/e2e/google-auth-servers.ts';

const MODEL = 'gemini-vertex-e2e-flash';
const PROJECT = 'ers-vertex-e2e';
const LOCATION = 'europe-west4';
const REPORT = { context: 'property_maintenance', evidence: { text: 'Water is leaking from the pipe under the kitchen sink.' } };

describe('Vertex AI with Application Default Credentials, end to end (R44)', function () {
  this.timeout(90_000);
  let gemini: FakeGemini;
  let metadata: AuthServer;

  before(async () => {
    gemini = await startFakeGemini();
    metadata = await startMetadataServer(PROJECT);
  });
  afterEach(() => {
    gemini.reset();
    metadata.requests.length = 0;
  });
  after(async () => {
    await gemini.stop();
    await metadata.close();
  });
  // A HOME of its own: no gcloud well-known credentials file of the machine is found first.
  const service = useServiceProcess('ers-vertex-', () => ({
    GOOGLE_GENAI_USE_VERTEXAI: 'true',
    GOOGLE_CLOUD_LOCATION: LOCATION,
    GEMINI_BASE_URL: gemini.baseUrl,
    GEMINI_MODEL: MODEL,
    GENERATOR_TIMEOUT_MS: '5000',
  }));
  const { start } = service;

  it('takes the token from the metadata server and calls projects/P/locations/L/publishers/google/models/M with it', async () => {
    const url = await start({ GCE_METADATA_HOST: metadata.host, GOOGLE_CLOUD_PROJECT: PROJECT });
    const customer = await createCustomerFixture();
    const res = await client(url, customer.apiKey).createReport(REPORT);
    expect(res.status, res.text).to.equal(201);

    const call = gemini.requests.at(-1);
    expect(call?.url).to.equal(`/v1beta1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/${MODEL}:generateContent`);
    expect(call?.headers.authorization).to.equal(`Bearer ${metadata.token}`);
    expect(call?.headers['x-goog-api-key']).to.equal(undefined);
    // The start-up lookup went to Vertex AI's publisher model path, with the same token.
    expect(gemini.lookups.map((l) => l.url)).to.deep.equal([`/v1beta1/publishers/google/models/${MODEL}`]);
    expect(gemini.lookups[0]?.headers.authorization).to.equal(`Bearer ${metadata.token}`);
    // The metadata server was asked for the token as Cloud Run and GKE serve it.
    const tokenRequests = metadata.requests.filter((r) => r.url.startsWith('/computeMetadata/v1/instance/service-accounts/default/token'));
    expect(tokenRequests.length).to.be.at.least(1);
    expect(tokenRequests.every((r) => r.headers['metadata-flavor'] === 'Google')).to.equal(true);

    // R42: the stored report keeps the model that answered and its tokens (never in the response).
    expect(res.text).not.to.include(MODEL);
    const id = (res.body as { id: string }).id;
    const [row] = await (await testEm()).getConnection().execute<{ model: string; tokens_input: number; tokens_output: number; tokens_thinking: number }[]>(
      'select model, tokens_input, tokens_output, tokens_thinking from evidence_report where id = ?',
      [id],
    );
    expect(row).to.deep.equal({ model: MODEL, tokens_input: 321, tokens_output: 87, tokens_thinking: 0 });
  });

  it('takes the project from the metadata server when GOOGLE_CLOUD_PROJECT is unset', async () => {
    const url = await start({ GCE_METADATA_HOST: metadata.host });
    const res = await client(url, (await createCustomerFixture()).apiKey).createReport(REPORT);
    expect(res.status, res.text).to.equal(201);
    expect(gemini.requests.at(-1)?.project).to.equal(PROJECT);
    expect(metadata.requests.some((r) => r.url.startsWith('/computeMetadata/v1/project/project-id'))).to.equal(true);
  });

  it('a key file whose token endpoint cannot be reached: 503 report_generation_unavailable, the reason logged once, no key material in any line', async () => {
    // google-auth-library 10 sends a key's JWT grant to https://oauth2.googleapis.com/token (its
    // own constant, whatever token_uri says). Here the egress proxy in front of it (R45) refuses
    // connections, so the token endpoint cannot be reached, the same way on any machine.
    const dead = `http://127.0.0.1:${await freePort()}`;
    const key = serviceAccountKey(PROJECT, `${dead}/token`);
    const keyFile = join(service.home, 'service-account.json');
    await writeFile(keyFile, key.json, { mode: 0o600 });
    const url = await start({
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      GOOGLE_CLOUD_PROJECT: PROJECT,
      HTTPS_PROXY: dead,
      NO_PROXY: '127.0.0.1',
      LOG_LEVEL: 'trace',
    });
    const customer = await createCustomerFixture();
    const linesBefore = service.server!.stdoutLines.length;
    // The start-up lookup (R42) could not be made either, and says why: the credentials, not Vertex AI.
    const lookups = service.server!.stdoutLines.slice(0, linesBefore).filter((l) => l.includes('GEMINI_MODEL lookup could not be made'));
    expect(lookups, service.server!.stdoutLines.join('\n')).to.have.lengthOf(1);
    expect(JSON.parse(lookups[0]!)).to.include({ reason: 'credentials_token_endpoint_unreachable' });

    const res = await client(url, customer.apiKey).createReport(REPORT);
    expect(res.status, res.text).to.equal(503);
    expect((res.body as { error: { code: string } }).error.code).to.equal('report_generation_unavailable');
    expect(gemini.requests, 'nothing reached Vertex AI without a token').to.have.lengthOf(0);

    // The response can arrive before the child's stdout: wait for the request's line, and for the
    // access line after it, so that a second mention would be here too.
    await service.server!.waitForLog('dependency failure', 10_000, linesBefore);
    await service.server!.waitForLog('request', 10_000, linesBefore);
    const during = service.server!.stdoutLines.slice(linesBefore).filter((l) => l.includes('credentials_'));
    // Logged once: the request's own dependency-failure line, with its fixed reason and errno.
    expect(during, during.join('\n')).to.have.lengthOf(1);
    const line = JSON.parse(during[0]!) as { msg: string; dependency: string; reason: string; requestId: string; cause: { code?: string } };
    expect(line).to.include({ msg: 'dependency failure', dependency: 'generator', reason: 'credentials_token_endpoint_unreachable' });
    expect(line.cause.code).to.equal('ECONNREFUSED');
    expect(line.requestId).to.equal(res.headers['x-request-id']);

    const everything = `${service.server!.stdoutLines.join('\n')}\n${service.server!.stderr()}`;
    expect(everything).not.to.include(key.privateKeyId);
    expect(everything).not.to.include(key.privateKeyBody.slice(0, 64));
    expect(everything).not.to.include('BEGIN PRIVATE KEY');
    expect(everything).not.to.include('assertion');
  });

  /** The reason of the request's one dependency-failure line. */
  async function failureReason(res: { headers: Record<string, unknown> }, linesBefore: number): Promise<unknown> {
    const line = await service.server!.waitForLog('dependency failure', 10_000, linesBefore);
    expect(line.requestId, 'the line of that request').to.equal(res.headers['x-request-id']);
    return line.reason;
  }

  it('a token request that hangs costs the request its deadline, not every later one: the next request asks afresh (R33)', async () => {
    // The egress proxy in front of the token endpoint (R45) first accepts and never answers, then
    // refuses: a later request that joined the hung token request would time out as well.
    const hung = new Set<Socket>();
    const proxy = createServer((socket) => hung.add(socket));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const key = serviceAccountKey(PROJECT, `${proxyUrl}/token`);
      const keyFile = join(service.home, 'service-account-hung.json');
      await writeFile(keyFile, key.json, { mode: 0o600 });
      const url = await start({ GOOGLE_APPLICATION_CREDENTIALS: keyFile, GOOGLE_CLOUD_PROJECT: PROJECT, HTTPS_PROXY: proxyUrl, NO_PROXY: '127.0.0.1', GENERATOR_TIMEOUT_MS: '1500' });
      const api = client(url, (await createCustomerFixture()).apiKey);
      let before = service.server!.stdoutLines.length;
      const first = await api.createReport(REPORT);
      expect(first.status, first.text).to.equal(503);
      expect(await failureReason(first, before)).to.equal('timeout');
      expect(hung.size, 'the token request is still held open').to.be.at.least(1);
      // New connections are refused now; the hung one stays open.
      proxy.close();
      before = service.server!.stdoutLines.length;
      const second = await api.createReport(REPORT);
      expect(second.status, second.text).to.equal(503);
      expect(await failureReason(second, before)).to.equal('credentials_token_endpoint_unreachable');
    } finally {
      for (const socket of hung) socket.destroy();
      if (proxy.listening) proxy.close();
    }
  });

  it('a metadata server whose token request never answers: 503 at the library\'s own timeout, logged as credentials_token_endpoint_timeout, not the catch-all credentials_error (R33, R44)', async () => {
    const metadata = await startMetadataServer(PROJECT, 0, { tokenHangs: true });
    try {
      // A deadline past gcp-metadata's 3 s, so that the library's own timeout ends the wait.
      const url = await start({ GCE_METADATA_HOST: metadata.host, GOOGLE_CLOUD_PROJECT: PROJECT, GENERATOR_TIMEOUT_MS: '8000' });
      const api = client(url, (await createCustomerFixture()).apiKey);
      const before = service.server!.stdoutLines.length;
      const res = await api.createReport(REPORT);
      expect(res.status, res.text).to.equal(503);
      expect(await failureReason(res, before)).to.equal('credentials_token_endpoint_timeout');
    } finally {
      await metadata.close();
    }
  });

  it('a metadata server that was away at the first lookup is asked again: once it answers, requests succeed without a restart (R33)', async () => {
    const port = await freePort();
    const url = await start({ GCE_METADATA_HOST: `127.0.0.1:${port}`, GOOGLE_CLOUD_PROJECT: PROJECT });
    const api = client(url, (await createCustomerFixture()).apiKey);
    const before = service.server!.stdoutLines.length;
    const away = await api.createReport(REPORT);
    expect(away.status, away.text).to.equal(503);
    expect(await failureReason(away, before)).to.match(/^credentials_/);
    const late = await startMetadataServer(PROJECT, port);
    try {
      const res = await api.createReport(REPORT);
      expect(res.status, res.text).to.equal(201);
      expect(gemini.requests.at(-1)?.headers.authorization).to.equal(`Bearer ${late.token}`);
    } finally {
      await late.close();
    }
  });
});
