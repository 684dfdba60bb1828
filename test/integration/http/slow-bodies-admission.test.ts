// R52: one customer's slow uploads cannot shed everyone else. A POST takes its admission place
// before the application runs, and its body may take up to REQUEST_TIMEOUT_MS to arrive; the
// per-customer in-flight limit counts only from step 3, after the body. So a body that is slow
// to arrive lends its place (as a wait on the generator does), and another customer's requests
// are still served.
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

describe('slow request bodies hold no admission place (R52)', function () {
  this.timeout(30_000);
  // A small instance: four places.
  const app = useService({ ADMISSION_MAX_CONCURRENCY: '4', REQUEST_TIMEOUT_MS: '20000', HEADERS_TIMEOUT_MS: '10000' });
  const sockets: Socket[] = [];
  after(() => sockets.forEach((s) => s.destroy()));

  it('twelve authenticated POSTs whose bodies trickle in do not make another customer\'s GET usage a 503', async () => {
    const slow = await createCustomerFixture();
    const other = await createCustomerFixture();
    const { port } = new URL(app.service.url);
    for (let i = 0; i < 12; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      sockets.push(socket);
      socket.write(
        `POST /v1/evidence/reports HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${slow.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`,
      );
    }
    // Past the lending delay and the queue's bound: by now every place would be held.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (let i = 0; i < 5; i++) {
      const res = await send(app.service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': other.apiKey } });
      expect(res.status, res.text).to.equal(200);
    }
  });
});
