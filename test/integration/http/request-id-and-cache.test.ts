// Ruling R9: every response, success or error, API or plain route, carries a server-generated
// x-request-id that is unique per request and cache-control: no-store. A client's own
// x-request-id is not echoed back.
import { expect } from 'chai';
import { send, type TestResponse } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

const CLIENT_ID = 'client-chosen-request-id';

describe('x-request-id and cache-control on every response (R9)', () => {
  const app = useService();

  // One of each kind: 201, 200, 400, 401, 404, 405 and the plain routes.
  async function oneOfEach(extra: Record<string, string> = {}): Promise<TestResponse[]> {
    const key = { 'x-api-key': app.customer.apiKey, ...extra };
    const body = { context: 'damage_report', evidence: { text: 'A cracked window pane in the lobby.' } };
    return [
      await send(app.service.url, 'POST', '/v1/evidence/reports', { headers: key, body }),
      await send(app.service.url, 'GET', '/v1/usage/current', { headers: key }),
      await send(app.service.url, 'POST', '/v1/evidence/reports', { headers: key, body: { context: 'nope' } }),
      await send(app.service.url, 'GET', '/v1/usage/current', { headers: extra }),
      await send(app.service.url, 'GET', '/v1/nothing-here', { headers: extra }),
      await send(app.service.url, 'DELETE', '/v1/usage/current', { headers: key }),
      await send(app.service.url, 'GET', '/healthz', { headers: extra }),
      await send(app.service.url, 'GET', '/readyz', { headers: extra }),
      await send(app.service.url, 'GET', '/openapi.yaml', { headers: extra }),
      await send(app.service.url, 'GET', '/openapi.json', { headers: extra }),
    ];
  }

  it('every response carries cache-control: no-store and an x-request-id (R9)', async () => {
    const responses = await oneOfEach();
    expect(responses.map((r) => r.status)).to.deep.equal([201, 200, 400, 401, 404, 405, 200, 200, 200, 200]);
    for (const response of responses) {
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.headers['x-request-id']).to.be.a('string').and.match(/\S/);
    }
  });

  it('x-request-id differs on every response, and an error body repeats its own (R9)', async () => {
    const responses = [...(await oneOfEach()), ...(await oneOfEach())];
    const ids = responses.map((r) => r.headers['x-request-id']);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const response of responses.filter((r) => r.status >= 400)) {
      expect((response.body as { error: { requestId: string } }).error.requestId).to.equal(response.headers['x-request-id']);
    }
  });

  it('a client-sent x-request-id is not echoed: the id is always server-generated (R9)', async () => {
    for (const response of await oneOfEach({ 'x-request-id': CLIENT_ID })) {
      expect(response.headers['x-request-id']).to.be.a('string').and.not.equal(CLIENT_ID);
      expect(response.text).to.not.include(CLIENT_ID);
    }
  });
});
