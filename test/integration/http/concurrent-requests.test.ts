// Concurrent requests through one service each get their own answer (R3, R20): on the embedded
// database every pooled connection shares one PGlite session, so nothing may depend on
// per-connection state such as named prepared statements.
import { expect } from 'chai';
import { client } from '../../support/http-client.ts';
import { createCustomerFixture } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';

describe('concurrent requests (R3, R20)', () => {
  const app = useService();

  it('eight concurrent report creations of one customer all get 201 and count eight units (R17, R20)', async () => {
    const customer = await createCustomerFixture();
    const api = client(app.service.url, customer.apiKey);
    const body = { context: 'inventory_check', evidence: { text: 'Two pallets of tiles are missing from bay 4.' } };
    const responses = await Promise.all(Array.from({ length: 8 }, () => api.createReport(body)));
    const outcomes = responses.map((r) => [r.status, (r.body as { error?: { code: string } }).error?.code]);
    expect(outcomes).to.deep.equal(Array(8).fill([201, undefined]));
    const usage = await api.currentUsage<{ usage: { used: number }[] }>();
    expect(usage.body.usage[0]?.used).to.equal(8);
  });
});
