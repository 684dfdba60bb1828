// Ruling R6 through the real app: a content type other than application/json (parameters such
// as charset allowed) and a body over the size limit are 400 invalid_request_payload; 413 is not
// in the contract. Nothing is generated or stored.
import { expect } from 'chai';
import { Agent, request } from 'node:http';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { useService } from '../../support/use-service.ts';
import { customerTotals, postChunked, REPORTS_PATH, VALID_BODY } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const ONE_MIB = 1024 * 1024;
const json = JSON.stringify(VALID_BODY);

/** A valid request body of exactly `bytes` bytes; two-byte characters keep the text under its limit. */
function bodyOfSize(bytes: number): Buffer {
  const pad = bytes - JSON.stringify({ context: 'property_maintenance', evidence: { text: '' } }).length;
  const text = 'é'.repeat(Math.floor(pad / 2)) + 'x'.repeat(pad % 2);
  const body = Buffer.from(JSON.stringify({ context: 'property_maintenance', evidence: { text } }), 'utf8');
  expect(body.length).to.equal(bytes);
  return body;
}

describe('POST /v1/evidence/reports: content type and body size (R6)', () => {
  const generator = new FakeReportGenerator();
  // Text limit above the characters of the large bodies, so that only their size can reject them.
  const app = useService({ EVIDENCE_TEXT_MAX_CHARS: '1000000' }, { generator });

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json-patch+json', 'multipart/form-data; boundary=x']) {
    it(`content-type ${contentType} is 400 invalid_request_payload (R6)`, async () => {
      const res = await app.client.create(undefined, { raw: json, headers: { 'content-type': contentType } });
      expectApiError(res, 'invalid_request_payload', { pointer: '', rule: 'contentType' });
    });
  }

  it('no content-type is 400 invalid_request_payload (R6)', async () => {
    const res = await app.client.create(undefined, { raw: json });
    expectApiError(res, 'invalid_request_payload', { pointer: '', rule: 'contentType' });
  });

  for (const contentType of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8']) {
    it(`content-type "${contentType}" is accepted (R6: parameters such as charset allowed)`, async () => {
      const res = await app.client.create(undefined, { raw: json, headers: { 'content-type': contentType } });
      expect(res.status).to.equal(201);
    });
  }

  it('a body of exactly 1 MiB is accepted (R6 default limit)', async () => {
    const res = await app.client.create(undefined, { raw: bodyOfSize(ONE_MIB), headers: { 'content-type': 'application/json' } });
    expect(res.status).to.equal(201);
  });

  it('a body one byte over 1 MiB is 400 invalid_request_payload, not 413 (R6)', async () => {
    const res = await app.client.create(undefined, { raw: bodyOfSize(ONE_MIB + 1), headers: { 'content-type': 'application/json' } });
    expectApiError(res, 'invalid_request_payload', { pointer: '', rule: 'maxBodySize' });
  });

  it('a chunked body over 1 MiB (no content-length) is 400 invalid_request_payload (R6)', async () => {
    const res = await postChunked(app.service.url, { 'content-type': 'application/json', 'x-api-key': app.customer.apiKey }, bodyOfSize(3 * ONE_MIB));
    expectApiError(res, 'invalid_request_payload', { pointer: '', rule: 'maxBodySize' });
  });

  it('a chunked body over 1 MiB closes its connection with the 400, so a keep-alive client does not reuse a socket the service stopped reading (R6)', async () => {
    // The service stops reading such a body at the limit (reading on would let a client stream
    // without end). The connection then cannot carry another request: the answer must say so,
    // or a client's next request on it is lost to a reset.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const url = new URL(REPORTS_PATH, app.service.url);
      const first = await new Promise<{ status: number | undefined; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': app.customer.apiKey, 'transfer-encoding': 'chunked' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body }));
          res.on('error', reject);
        });
        // The rest of the body may meet a closed socket: that is the point, not a failure.
        req.on('error', () => {});
        req.end(bodyOfSize(3 * ONE_MIB));
      });
      expect(first.status).to.equal(400);
      expect(JSON.parse(first.body)).to.have.nested.property('error.details.rule', 'maxBodySize');
      expect(first.connection).to.equal('close');
      const second = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(new URL('/v1/usage/current', app.service.url), { agent, headers: { 'x-api-key': app.customer.apiKey } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', reject);
        req.end();
      });
      expect(second).to.equal(200);
    } finally {
      agent.destroy();
    }
  });

  it('a chunked body within 1 MiB is read to its end and accepted (R6)', async () => {
    const res = await postChunked(app.service.url, { 'content-type': 'application/json', 'x-api-key': app.customer.apiKey }, bodyOfSize(ONE_MIB));
    app.ledger.note(app.client.customerId, res);
    expect(res.status).to.equal(201);
  });

  it('rejected requests reach no generator and leave nothing: one report per accepted request', async () => {
    expect(generator.callCount).to.equal(5);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 5, units: 5, claims: 0 });
  });
});
