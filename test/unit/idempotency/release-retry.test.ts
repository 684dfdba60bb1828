// Rulings R14 and R36: a claim whose release failed (the database was unreachable) is released
// again in the background as soon as the database answers, until its lease passes.
import { expect } from 'chai';
import { ReleaseRetry, type ReleasableClaim } from '../../../src/idempotency/release-retry.ts';
import { FixedClock } from '../../../src/shared/clock.ts';

const NOW = '2026-11-23T10:00:00.000Z';
const claim = (key: string, leaseMs: number): ReleasableClaim => ({
  customerId: 'c1',
  key,
  leaseExpiresAt: new Date(new Date(NOW).getTime() + leaseMs).toISOString(),
});

describe('failed claim releases are retried until they succeed or their lease passes (R14, R36)', () => {
  it('retries a failed release until the database answers, then forgets it', async () => {
    let failures = 2;
    const released: string[] = [];
    const retry = new ReleaseRetry({
      clock: new FixedClock(NOW),
      release: async (c) => {
        if (failures-- > 0) throw new Error('connection refused');
        released.push(c.key);
      },
    });
    retry.add(claim('k1', 60_000));
    await retry.retryNow();
    await retry.retryNow();
    expect(released).to.deep.equal([]);
    expect(retry.size).to.equal(1);
    await retry.retryNow();
    expect(released).to.deep.equal(['k1']);
    expect(retry.size).to.equal(0);
    retry.stop();
  });

  it('drops a claim whose lease has passed without releasing it (it may be taken over, R14)', async () => {
    const clock = new FixedClock(NOW);
    const released: string[] = [];
    const retry = new ReleaseRetry({ clock, release: async (c) => void released.push(c.key) });
    retry.add(claim('expired', 1_000));
    clock.advance(1_000);
    await retry.retryNow();
    expect(released).to.deep.equal([]);
    expect(retry.size).to.equal(0);
    retry.stop();
  });

  it('retries on its own timer, without a caller', async () => {
    let failures = 1;
    const released: string[] = [];
    const retry = new ReleaseRetry({
      clock: new FixedClock(NOW),
      firstDelayMs: 5,
      release: async (c) => {
        if (failures-- > 0) throw new Error('timeout');
        released.push(c.key);
      },
    });
    retry.add(claim('k2', 60_000));
    for (let i = 0; i < 200 && released.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(released).to.deep.equal(['k2']);
    retry.stop();
  });
});
