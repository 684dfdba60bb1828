// R51: /readyz asks the database at most once a second, single-flight (src/http/readiness-gate.ts).
// The clock and the sleep are the test's: a sleep that ends early by the clock (as Node's timers
// may, by up to a millisecond against performance.now()) must not let a probe start before a
// whole interval has passed.
import { expect } from 'chai';
import { readinessGate, readyUnlessDraining } from '../../../src/http/readiness-gate.ts';

describe('the readiness gate: one probe at a time, at most one per interval (R51)', () => {
  function clocked(early: number) {
    let clock = 0;
    const starts: number[] = [];
    const gate = readinessGate(
      async () => {
        starts.push(clock);
        return true;
      },
      {
        intervalMs: 1_000,
        probeMs: 900,
        now: () => clock,
        // Every sleep ends `early` ms before the time it was asked for, by the clock (but
        // lasts at least a millisecond).
        sleep: async (ms: number) => {
          clock += Math.max(1, ms - early);
        },
      },
    );
    return { gate, starts };
  }

  it('callers at the same moment share one probe', async () => {
    const { gate, starts } = clocked(0);
    const answers = await Promise.all([gate(), gate(), gate()]);
    expect(answers).to.deep.equal([true, true, true]);
    expect(starts).to.deep.equal([0]);
  });

  for (const early of [0, 1, 400]) {
    it(`consecutive probes start a whole interval apart, with sleeps that end ${early} ms early`, async () => {
      const { gate, starts } = clocked(early);
      for (let i = 0; i < 5; i += 1) expect(await gate()).to.equal(true);
      expect(starts).to.have.length(5);
      for (let i = 1; i < starts.length; i += 1) {
        expect((starts[i] as number) - (starts[i - 1] as number), `probe ${i + 1}`).to.be.at.least(1_000);
      }
    });
  }

  it('a probe that does not answer within its bound counts as not ready', async () => {
    const gate = readinessGate(() => new Promise<boolean>(() => {}), { probeMs: 20 });
    expect(await gate()).to.equal(false);
  });
});

describe('readiness while draining (R35)', () => {
  it('a probe under way when SIGTERM comes answers not ready, though the database answered', async () => {
    let draining = false;
    let answer: (ready: boolean) => void = () => {};
    const ready = readyUnlessDraining(
      () => draining,
      () => new Promise<boolean>((resolve) => (answer = resolve)),
    );
    const asked = ready();
    draining = true;
    answer(true);
    expect(await asked).to.equal(false);
  });

  it('ready when the database answers and no drain began; not ready, without a probe, once it did', async () => {
    let draining = false;
    let probes = 0;
    const ready = readyUnlessDraining(
      () => draining,
      async () => (probes += 1) > 0,
    );
    expect(await ready()).to.equal(true);
    draining = true;
    expect(await ready()).to.equal(false);
    expect(probes).to.equal(1);
  });
});
