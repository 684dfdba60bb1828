// Spec 4.2: reading usage is free and writes nothing: no usage record, no counter change, no
// report, no idempotency record, and it is not counted by the technical rate limit, which
// counts report creations only (R20).
import { expect } from 'chai';
import { createCustomerFixture } from '../../support/database.ts';
import { customerFootprint } from '../../support/footprint.ts';
import { client } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

describe('GET /v1/usage/current writes nothing (spec 4.2)', () => {
  // A limit of one request per window: a GET that counted would show at once.
  const app = useService({ RATE_LIMIT_REQUESTS: '1', RATE_LIMIT_WINDOW_SECONDS: '3600' });

  it('several reads leave every table of the customer, the usage counter and its rate-limit counter unchanged', async () => {
    const customer = await createCustomerFixture();
    const api = client(app.service.url, customer.apiKey);
    const report = { context: 'delivery_confirmation', evidence: { text: 'Parcel left at the front desk, box dented.' } };
    expect((await api.createReport(report)).status).to.equal(201);
    const before = await customerFootprint(customer.customerId);
    for (let i = 0; i < 5; i += 1) {
      const response = await api.currentUsage<{ usage: { used: number }[] }>();
      expect(response.status).to.equal(200);
      expect(response.body.usage[0]?.used).to.equal(1);
    }
    expect(await customerFootprint(customer.customerId)).to.deep.equal(before);
  });

  it('reads are not rate limited: the one allowed report creation is still available after them (R20)', async () => {
    const customer = await createCustomerFixture();
    const api = client(app.service.url, customer.apiKey);
    for (let i = 0; i < 5; i += 1) expect((await api.currentUsage()).status).to.equal(200);
    const report = { context: 'property_maintenance', evidence: { text: 'The hallway light flickers.' } };
    expect((await api.createReport(report)).status).to.equal(201);
    expect((await api.createReport(report)).status).to.equal(429);
  });

  it('a refused read (403) writes nothing either (spec 4.2, R18)', async () => {
    const customer = await createCustomerFixture({ usageHidden: true });
    const before = await customerFootprint(customer.customerId);
    for (let i = 0; i < 3; i += 1) expect((await client(app.service.url, customer.apiKey).currentUsage()).status).to.equal(403);
    expect(await customerFootprint(customer.customerId)).to.deep.equal(before);
  });
});
