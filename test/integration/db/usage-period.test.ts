// Spec section 8: the quota period is the UTC calendar month, start inclusive at 00:00:00
// UTC on the 1st, end exclusive at the next 1st. monthPeriod (the application) and
// usage_period_start (the usage counter trigger, R17) must agree at every edge.
import { expect } from 'chai';
import { monthPeriod } from '../../../src/usage/period.ts';
import { testEm } from '../../support/database.ts';

const iso = (d: Date): string => d.toISOString();

describe('UTC monthly period (spec section 8)', () => {
  it('starts on the 1st at 00:00 UTC and ends at the next 1st, for a mid-month instant', () => {
    const p = monthPeriod(new Date('2026-07-15T13:45:00Z'));
    expect([iso(p.startsAt), iso(p.endsAt)]).to.deep.equal(['2026-07-01T00:00:00.000Z', '2026-08-01T00:00:00.000Z']);
  });

  it('puts the first millisecond in the month and the last millisecond before the end', () => {
    expect(iso(monthPeriod(new Date('2026-07-01T00:00:00.000Z')).startsAt)).to.equal('2026-07-01T00:00:00.000Z');
    expect(iso(monthPeriod(new Date('2026-07-31T23:59:59.999Z')).endsAt)).to.equal('2026-08-01T00:00:00.000Z');
  });

  it('rolls December over to January of the next year', () => {
    const p = monthPeriod(new Date('2026-12-31T23:59:59.999Z'));
    expect([iso(p.startsAt), iso(p.endsAt)]).to.deep.equal(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
  });

  it('ends a leap February after the 29th and a common February after the 28th', () => {
    expect(iso(monthPeriod(new Date('2028-02-29T12:00:00Z')).endsAt)).to.equal('2028-03-01T00:00:00.000Z');
    expect(iso(monthPeriod(new Date('2027-02-28T23:59:59.999Z')).startsAt)).to.equal('2027-02-01T00:00:00.000Z');
    expect(iso(monthPeriod(new Date('2027-03-01T00:00:00Z')).startsAt)).to.equal('2027-03-01T00:00:00.000Z');
  });

  it('does not depend on the process time zone: an instant west of UTC on the last evening is next month', () => {
    // 2026-03-31 20:00 in New York is 2026-04-01 00:00 UTC.
    expect(iso(monthPeriod(new Date('2026-03-31T20:00:00-04:00')).startsAt)).to.equal('2026-04-01T00:00:00.000Z');
  });

  it('agrees with the database function the usage counter trigger uses, at every edge (R17)', async () => {
    const instants = [
      '2026-01-01T00:00:00.000Z',
      '2026-01-31T23:59:59.999Z',
      '2026-12-31T23:59:59.999Z',
      '2027-01-01T00:00:00.000Z',
      '2028-02-29T23:59:59.999Z',
      '2026-03-31T20:00:00-04:00',
    ];
    const em = await testEm();
    for (const instant of instants) {
      const [row] = await em.execute<{ start: Date }[]>('select usage_period_start(?::timestamptz) as start', [instant]);
      expect(iso(new Date(row?.start as Date)), instant).to.equal(iso(monthPeriod(new Date(instant)).startsAt));
    }
  });
});
