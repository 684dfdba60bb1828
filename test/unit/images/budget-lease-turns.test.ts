// R39: a lease's reservation waits only for the room its own images may give back (BudgetLease).
// Refused at once when none of them is at work; woken by what they give back or by their end;
// an abort ends the wait.
import { expect } from 'chai';
import { BudgetLease, ByteBudget } from '../../../src/images/index.ts';

/** A lease of a 100-byte budget with two images at work (one to give room back, one to wait), holding `held`. */
function twoAtWork(held: number): BudgetLease {
  const lease = new BudgetLease(new ByteBudget(100));
  lease.begin();
  lease.begin();
  expect(lease.tryReserve(held)).to.equal(true);
  return lease;
}

describe('BudgetLease: reservations wait for their own request, never for others (R39)', () => {
  it("is refused at once when no other image of the lease is at work, whoever holds the room", async () => {
    const budget = new ByteBudget(100);
    const other = new BudgetLease(budget);
    other.tryReserve(60);
    const lease = new BudgetLease(budget);
    lease.begin();
    expect(await lease.reserveWaiting(50)).to.equal(false);
    // The lease's own bytes, as they will stay (no other image at work): refused too.
    other.releaseAll();
    lease.tryReserve(60);
    expect(await lease.reserveWaiting(50)).to.equal(false);
    lease.end();
  });

  it('waits while another image of the lease is at work, and takes the room it gives back', async () => {
    const lease = twoAtWork(80);
    let settled: boolean | undefined;
    const waiting = lease.reserveWaiting(50).then((ok) => (settled = ok));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled, 'still waiting').to.equal(undefined);
    lease.exchange(80, 30); // its original traded for a smaller copy
    expect(await waiting).to.equal(true);
    expect(lease.held).to.equal(80);
  });

  it('is refused once the image it waited for ends without making room', async () => {
    const lease = twoAtWork(80);
    const waiting = lease.reserveWaiting(50);
    lease.end();
    expect(await waiting).to.equal(false);
  });

  it('two waiting images do not wait for each other', async () => {
    const lease = twoAtWork(90);
    const first = lease.reserveWaiting(50);
    // The second finds the only other image waiting itself: nothing at work can make room.
    expect(await lease.reserveWaiting(50)).to.equal(false);
    lease.end();
    expect(await first).to.equal(false);
  });

  it('an abort ends the wait with its reason', async () => {
    const lease = twoAtWork(80);
    const controller = new AbortController();
    const waiting = lease.reserveWaiting(50, controller.signal);
    controller.abort(new Error('deadline'));
    const error = await waiting.catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error).with.property('message', 'deadline');
    expect(lease.held).to.equal(80);
  });
});
