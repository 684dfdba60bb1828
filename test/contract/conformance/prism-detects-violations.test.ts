// The conformance run's detector can fail: in front of an upstream that answers
// outside the contract, both Prism proxies of prism-proxy-conformance.test.ts report it, the
// `--errors` one by answering with its own problem document, the other in `sl-violations`
// under "response", and both in their logs. Requests here go through fetch, not the suite's
// client, because these answers are meant to break the contract.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { prismVerdict, startPrism, type PrismProxy } from './prism.ts';

async function startLyingUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/usage/current') {
        // Missing cache-control, a period without its fields.
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
        res.end(JSON.stringify({ period: {}, usage: [] }));
        return;
      }
      // An undocumented status would be one lie; a 201 with a wrong body is another.
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r-2', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ id: 1, status: 'done' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function call(proxy: PrismProxy, method: string, path: string, body?: unknown) {
  const res = await fetch(`${proxy.url}${path}`, {
    method,
    headers: { 'x-api-key': 'ers_live_whatever', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, verdict: prismVerdict(Object.fromEntries(res.headers), text) };
}

describe('the Prism conformance check reports a response that breaks the contract', function () {
  this.timeout(60_000);
  let upstream: { url: string; server: Server };
  let strict: PrismProxy;
  let lenient: PrismProxy;
  const validBody = { context: 'damage_report', evidence: { text: 'Cracked glass.' } };

  before(async function () {
    upstream = await startLyingUpstream();
    [strict, lenient] = await Promise.all([startPrism(upstream.url, { errors: true }), startPrism(upstream.url, { errors: false })]);
  });

  after(async function () {
    await strict?.stop();
    await lenient?.stop();
    await new Promise((resolve) => upstream?.server.close(resolve));
  });

  it('with --errors, Prism replaces a violating answer with its own problem document and logs it', async function () {
    for (const [method, path, body] of [['POST', '/v1/evidence/reports', validBody], ['GET', '/v1/usage/current', undefined]] as const) {
      const { verdict } = await call(strict, method, path, body);
      expect(verdict.prismAnswer, `${method} ${path}`).to.be.a('string').and.to.include('VIOLATIONS');
      expect(verdict.request).to.deep.equal([]);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(strict.output()).to.match(/Request terminated with error: .*VIOLATIONS/);
  });

  it('without --errors, Prism forwards the answer, lists the violations under "response" and logs them', async function () {
    const created = await call(lenient, 'POST', '/v1/evidence/reports', validBody);
    expect(created.status).to.equal(201);
    expect(created.verdict.response.map((v) => v.location.join('.'))).to.include.members(['response.body']);
    const usage = await call(lenient, 'GET', '/v1/usage/current');
    expect(usage.verdict.response.length).to.be.greaterThan(0);
    expect(usage.verdict.prismAnswer).to.equal(undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lenient.output()).to.match(/Violation: response/);
  });

  it('a request violation is reported under "request", apart from the response', async function () {
    const { verdict } = await call(lenient, 'POST', '/v1/evidence/reports', { context: 'nope' });
    expect(verdict.request.length).to.be.greaterThan(0);
    expect(verdict.request.every((v) => v.location[0] === 'request')).to.equal(true);
  });
});
