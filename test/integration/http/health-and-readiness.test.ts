// operator-interface.md "Health and operations": /healthz is 200 while the process runs,
// /readyz is 200 when the database answers and 503 when it does not; neither needs a key.
import { get } from 'node:http';
import { expect } from 'chai';
import { proxyToTestDatabase, testDatabaseUrl } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';
import { viaProxy, type TcpProxy } from '../../support/tcp-proxy.ts';

// The 503 of /readyz is a plain-route answer, not an API error: there is no catalogue code for
// "not ready", so it carries no error envelope. The shared client's contract check would take
// any status >= 400 for an API error, so this one response is read with node:http directly.
function readyzUnrecorded(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  return new Promise((resolve, reject) => {
    get(`${url}/readyz`, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('health and readiness (operator-interface.md)', () => {
  let proxy: TcpProxy;

  before(async () => {
    proxy = await proxyToTestDatabase();
  });
  const app = useService(() => ({ DATABASE_URL: viaProxy(testDatabaseUrl(), proxy) }));
  afterEach(() => proxy.restore());
  after(async () => {
    await proxy?.close();
  });

  it('GET /healthz is 200 without a key', async () => {
    const response = await send(app.service.url, 'GET', '/healthz');
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ status: 'ok' });
  });

  it('GET /readyz is 200 without a key when the database answers', async () => {
    const response = await send(app.service.url, 'GET', '/readyz');
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ status: 'ready' });
  });

  it('GET /readyz is 503 while the database does not answer, and 200 again once it does; /healthz stays 200', async () => {
    proxy.cut();
    const down = await readyzUnrecorded(app.service.url);
    expect(down.status).to.equal(503);
    expect(down.body).to.deep.equal({ status: 'unavailable' });
    expect(down.headers['cache-control']).to.equal('no-store');
    expect(down.headers['x-request-id']).to.be.a('string').and.match(/\S/);
    expect((await send(app.service.url, 'GET', '/healthz')).status).to.equal(200);
    proxy.restore();
    expect((await send(app.service.url, 'GET', '/readyz')).status).to.equal(200);
  });
});
