// The quota period is the UTC calendar month, start inclusive, end exclusive (spec 2.7 and 8,
// R17), computed from the service's clock; every timestamp is RFC 3339 UTC with Z (R27). A
// unit recorded in the last millisecond of a month counts in that month and not the next.
import { expect } from 'chai';
import type { components } from '../../../generated/openapi.d.ts';
import { FixedClock } from '../../../src/shared/clock.ts';
import { createCustomerFixture } from '../../support/database.ts';
import { client } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

type CurrentUsage = components['schemas']['CurrentUsage'];

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

const BOUNDARIES: [now: string, startsAt: string, endsAt: string][] = [
  ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
  ['2026-01-31T23:59:59.999Z', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
  ['2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
  ['2026-02-28T23:59:59.999Z', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
  ['2026-12-31T23:59:59.999Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ['2027-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
  ['2028-02-29T00:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ['2028-02-29T23:59:59.999Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ['2028-03-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z', '2028-04-01T00:00:00.000Z'],
];

const REPORT = { context: 'damage_report', evidence: { text: 'The garage door panel is bent after a collision.' } };

describe('GET /v1/usage/current: the UTC month period (spec 2.7, R17, R27)', () => {
  const clock = new FixedClock('2026-01-15T00:00:00.000Z');
  const app = useService({}, { clock });

  async function usageAt(now: string, who = app.customer): Promise<CurrentUsage> {
    clock.set(now);
    const response = await client(app.service.url, who.apiKey).currentUsage<CurrentUsage>();
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body;
  }

  for (const [now, startsAt, endsAt] of BOUNDARIES) {
    it(`at ${now} the period is [${startsAt}, ${endsAt}) (spec 2.7)`, async () => {
      expect((await usageAt(now)).period).to.deep.equal({ startsAt, endsAt });
    });
  }

  it('period timestamps are RFC 3339 in UTC with the Z suffix, never +00:00 (R27)', async () => {
    for (const [now] of BOUNDARIES) {
      const { period } = await usageAt(now);
      expect(period.startsAt).to.match(RFC3339_UTC);
      expect(period.endsAt).to.match(RFC3339_UTC);
    }
  });

  it('a unit recorded at 23:59:59.999 on the last day of January counts in January, not February (R17)', async () => {
    const own = await createCustomerFixture();
    clock.set('2026-01-31T23:59:59.999Z');
    expect((await client(app.service.url, own.apiKey).createReport(REPORT)).status).to.equal(201);
    expect((await usageAt('2026-01-31T23:59:59.999Z', own)).usage[0]?.used).to.equal(1);
    expect((await usageAt('2026-02-01T00:00:00.000Z', own)).usage[0]?.used).to.equal(0);
    expect((await usageAt('2026-01-01T00:00:00.000Z', own)).usage[0]?.used).to.equal(1);
  });

  it('a unit recorded in the last millisecond of the year counts in December, not in the new year (R17)', async () => {
    const own = await createCustomerFixture();
    clock.set('2026-12-31T23:59:59.999Z');
    expect((await client(app.service.url, own.apiKey).createReport(REPORT)).status).to.equal(201);
    clock.set('2027-01-01T00:00:00.000Z');
    expect((await client(app.service.url, own.apiKey).createReport(REPORT)).status).to.equal(201);
    expect((await usageAt('2026-12-31T23:59:59.999Z', own)).usage[0]?.used).to.equal(1);
    expect((await usageAt('2027-01-01T00:00:00.000Z', own)).usage[0]?.used).to.equal(1);
    expect((await usageAt('2027-01-31T23:59:59.999Z', own)).usage[0]?.used).to.equal(1);
    expect((await usageAt('2027-02-01T00:00:00.000Z', own)).usage[0]?.used).to.equal(0);
  });

  it('a unit recorded on 29 February counts in February of the leap year (R17)', async () => {
    const own = await createCustomerFixture();
    clock.set('2028-02-29T23:59:59.999Z');
    expect((await client(app.service.url, own.apiKey).createReport(REPORT)).status).to.equal(201);
    expect((await usageAt('2028-02-01T00:00:00.000Z', own)).usage[0]?.used).to.equal(1);
    expect((await usageAt('2028-03-01T00:00:00.000Z', own)).usage[0]?.used).to.equal(0);
  });
});
