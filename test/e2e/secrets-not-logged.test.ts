// Keys never reach the log (spec section 5 rule 2, R26): across a run of the whole
// service with trace logging (every level on) and the Gemini generator, the customer's x-api-key
// value, wrong and revoked keys that were tried, keys put in the query string, and the Gemini
// key appear in no log line, whatever the outcome (201, replay, 400, 401, 403, 404, 405, 422, 502,
// 503 with a retry).
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { setKeyStatus } from '../../src/admin/keys.ts';
import { createCustomerFixture, testEm } from '../support/database.ts';
import { client, send } from '../support/http-client.ts';
import { errorAnswer, reportAnswer } from '../support/generation/fake-gemini-server.ts';
import { IMAGES } from '../support/e2e/image-host.ts';
import { useGeminiRun } from '../support/e2e/gemini-service.ts';
import { LEVEL } from '../support/e2e/logged-service.ts';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomKey = (): string => `ers_live_${Array.from(randomBytes(40), (b) => BASE62[b % 62]).join('')}`;

/** The key, its secret part, and every 12-character window of that part: none may be logged. */
function fragments(key: string): string[] {
  const secret = key.replace(/^ers_live_/, '');
  const windows = [];
  for (let i = 0; i + 12 <= secret.length; i += 4) windows.push(secret.slice(i, i + 12));
  return [key, secret, ...windows];
}

describe('keys never reach the log, at any level, whatever the outcome (spec 5 rule 2, R26)', function () {
  this.timeout(30_000);
  const suite = useGeminiRun({}, { resetAfterEach: false, imageHost: true });

  it('a run of successes and failures with trace logging: no customer key, tried key or Gemini key in any line', async () => {
    const customer = await createCustomerFixture();
    const other = await createCustomerFixture({ noEntitlement: true });
    const revoked = await createCustomerFixture();
    await setKeyStatus(await testEm(), { apiKeyId: revoked.apiKeyId, status: 'revoked' });
    const wrongKey = randomKey();
    const almostKey = `${customer.apiKey.slice(0, -1)}${customer.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const api = client(suite.run.service.url, customer.apiKey);
    const body = { context: 'property_maintenance', evidence: { text: 'Water is leaking under the sink.' } };
    const statuses: number[] = [];
    const note = (status: number) => statuses.push(status);

    const idempotencyKey = randomUUID();
    note((await api.createReport(body, { 'Idempotency-Key': idempotencyKey })).status); // 201
    note((await api.createReport(body, { 'Idempotency-Key': idempotencyKey })).status); // 201 replay
    note((await api.createReport({ context: 'property_maintenance', evidence: { images: [{ url: suite.host.url(IMAGES.png.path) }] } })).status);
    note((await api.createReport({ context: 'property_maintenance', evidence: { images: [{ url: suite.host.url('/missing.png') }] } })).status); // 422
    note((await api.currentUsage()).status); // 200
    note((await send(suite.run.service.url, 'POST', '/v1/evidence/reports', { raw: '{"context":', headers: { 'x-api-key': customer.apiKey, 'content-type': 'application/json' } })).status); // 400
    note((await send(suite.run.service.url, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': wrongKey } })).status); // 401
    note((await send(suite.run.service.url, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': almostKey } })).status); // 401
    note((await send(suite.run.service.url, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': revoked.apiKey } })).status); // 401
    note((await send(suite.run.service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': wrongKey } })).status); // 401
    note((await send(suite.run.service.url, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': [customer.apiKey, wrongKey] } })).status); // 401
    note((await send(suite.run.service.url, 'POST', `/v1/evidence/reports?x-api-key=${customer.apiKey}&api_key=${customer.apiKey}`, { body })).status); // 401
    note((await send(suite.run.service.url, 'GET', `/v1/usage/current?x-api-key=${customer.apiKey}`)).status); // 401
    note((await client(suite.run.service.url, other.apiKey).createReport(body)).status); // 403
    note((await send(suite.run.service.url, 'GET', `/v1/nowhere?key=${customer.apiKey}`, { headers: { 'x-api-key': customer.apiKey } })).status); // 404
    note((await send(suite.run.service.url, 'DELETE', '/v1/usage/current', { headers: { 'x-api-key': customer.apiKey } })).status); // 405
    suite.run.gemini.setDefault(errorAnswer(400));
    note((await api.createReport(body)).status); // 502
    suite.run.gemini.setDefault(errorAnswer(503));
    note((await api.createReport(body)).status); // 503 after one retry (a debug line)
    suite.run.gemini.setDefault(reportAnswer());

    expect(new Set(statuses)).to.deep.equal(new Set([201, 200, 400, 401, 403, 404, 405, 422, 502, 503]));
    expect(suite.run.gemini.requests.length, 'Gemini calls: 2 reports, 1 failed, 2 attempts of the retried one').to.equal(5);

    const lines = suite.run.log.lines;
    expect(lines.filter((l) => l.level <= LEVEL.debug).length, 'debug lines were written').to.be.greaterThan(0);
    expect(lines.filter((l) => l.raw.includes('"msg":"request"')).length, 'one access line per request').to.be.at.least(statuses.length);
    const text = suite.run.log.text();
    for (const key of [customer.apiKey, other.apiKey, revoked.apiKey, wrongKey, almostKey]) {
      for (const fragment of fragments(key)) expect(text, 'a customer key (or part of one) reached the log').not.to.include(fragment);
    }
    expect(text, 'the Gemini key reached the log').not.to.include(suite.run.geminiKey);
    expect(text, 'the Gemini key reached the log').not.to.include(suite.run.geminiKey.replace(/^test-key-/, ''));
  });
});
