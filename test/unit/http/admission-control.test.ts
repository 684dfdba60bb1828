// R52: the admission controller on its own, on a clock and an event-loop delay the test sets:
// places up to the limit, a FIFO queue behind it, refusal when the estimated wait (queued x
// mean service time / limit) is over the allowed wait, half that bound under a standing
// overload, and the AIMD limit (shrinks when the loop lags or the database pool's queue is
// longer than three rounds of its connections, grows while it is reached and the loop keeps up,
// within its floor and ceiling).
import { expect } from 'chai';
import { AdmissionControl } from '../../../src/http/admission-control.ts';

/** A queued request these tests expect to start, never to be refused past the bound. */
const notRefused = (): void => {
  throw new Error('refused from the queue');
};

function rig(options: { maxQueueMs?: number; maxConcurrency?: number; databaseConnections?: number } = {}) {
  let now = 0;
  let delay = 0;
  let databaseWaiting = 0;
  const control = new AdmissionControl({
    maxQueueMs: options.maxQueueMs ?? 1_000,
    maxConcurrency: options.maxConcurrency ?? 1_024,
    now: () => now,
    loopDelayMs: () => delay,
    databaseWaiting: () => databaseWaiting,
    databaseConnections: options.databaseConnections ?? 10,
  });
  const advance = (ms: number) => (now += ms);
  return {
    control,
    advance,
    setDelay: (ms: number) => (delay = ms),
    setDatabaseWaiting: (callers: number) => (databaseWaiting = callers),
    /** Runs 200 requests of `ms` each, one after another: the mean service time becomes `ms`. */
    teachServiceTime: (ms: number) => {
      for (let i = 0; i < 200; i += 1) {
        const ticket = control.admit(() => {}, notRefused);
        advance(ms);
        ticket?.done();
      }
    },
  };
}

describe('admission control (R52)', () => {
  const controls: AdmissionControl[] = [];
  afterEach(() => controls.splice(0).forEach((control) => control.close()));
  const make = (options?: Parameters<typeof rig>[0]) => {
    const made = rig(options);
    controls.push(made.control);
    return made;
  };

  it('runs up to the limit at once, queues the next ones and starts them oldest first as places free up', () => {
    const { control } = make({ maxConcurrency: 2, maxQueueMs: 60_000 });
    const started: number[] = [];
    const tickets = [1, 2, 3, 4].map((n) => control.admit(() => started.push(n), notRefused));
    expect(started).to.deep.equal([1, 2]);
    expect(control.queued).to.equal(2);
    tickets[0]?.done();
    expect(started).to.deep.equal([1, 2, 3]);
    tickets[1]?.done();
    expect(started).to.deep.equal([1, 2, 3, 4]);
  });

  it('a queued request whose client went away leaves the queue and never runs', () => {
    const { control } = make({ maxConcurrency: 1, maxQueueMs: 60_000 });
    const started: string[] = [];
    const first = control.admit(() => started.push('first'), notRefused);
    const gone = control.admit(() => started.push('gone'), notRefused);
    control.admit(() => started.push('next'), notRefused);
    gone?.done();
    first?.done();
    expect(started).to.deep.equal(['first', 'next']);
  });

  it('a queued request still waiting when ADMISSION_MAX_QUEUE_MS has passed is refused instead of started, by the tick or the next start', () => {
    // The estimate said a short wait (fast requests), then every place stayed held: a database
    // that stopped answering holds them until its statements time out.
    const { control, advance, teachServiceTime } = make({ maxConcurrency: 2, maxQueueMs: 1_000 });
    teachServiceTime(5);
    const outcomes: string[] = [];
    const held = [0, 1].map(() => control.admit(() => {}, notRefused));
    const queued = [0, 1, 2].map((n) => control.admit(() => outcomes.push(`run ${n}`), () => outcomes.push(`refused ${n}`)));
    expect(queued.every(Boolean), 'admitted to the queue').to.equal(true);
    advance(200);
    const later = control.admit(() => outcomes.push('run later'), () => outcomes.push('refused later'));
    expect(later, 'the oldest has waited 200 ms: well under the bound').to.not.equal(undefined);
    advance(800);
    control.adjust();
    expect(outcomes, 'at the bound, not past it').to.deep.equal([]);
    advance(1);
    control.adjust();
    expect(outcomes).to.deep.equal(['refused 0', 'refused 1', 'refused 2']);
    expect(control.queued).to.equal(1);
    // A refused request's done() (its client's connection closing) changes nothing.
    queued.forEach((ticket) => ticket?.done());
    expect(control.queued).to.equal(1);
    // The one that came 200 ms later starts when a place frees within its bound...
    held[0]?.done();
    expect(outcomes).to.deep.equal(['refused 0', 'refused 1', 'refused 2', 'run later']);
    // ...and a place that frees after a queued request's bound refuses it rather than start it.
    const last = control.admit(() => outcomes.push('run last'), () => outcomes.push('refused last'));
    expect(last).to.not.equal(undefined);
    advance(1_001);
    held[1]?.done();
    expect(outcomes.at(-1)).to.equal('refused last');
    expect(control.active).to.equal(1);
  });

  it('a client gone away (abandon) takes a queued request out of the queue, but a started one keeps its place until done', () => {
    const { control } = make({ maxConcurrency: 1, maxQueueMs: 60_000 });
    const started: string[] = [];
    const running = control.admit(() => started.push('running'), notRefused);
    const queued = control.admit(() => started.push('queued'), notRefused);
    const next = control.admit(() => started.push('next'), notRefused);
    running?.abandon();
    expect(control.active, 'the started one still holds its place').to.equal(1);
    queued?.abandon();
    expect(control.queued).to.equal(1);
    running?.done();
    expect(started).to.deep.equal(['running', 'next']);
    next?.done();
    expect(control.active).to.equal(0);
  });

  it('refuses when the estimated wait is over ADMISSION_MAX_QUEUE_MS, from the measured service time', () => {
    const { control, teachServiceTime } = make({ maxConcurrency: 4, maxQueueMs: 1_000 });
    teachServiceTime(400);
    const held = Array.from({ length: 4 }, () => control.admit(() => {}, notRefused));
    expect(held.every(Boolean)).to.equal(true);
    // Queued n-th: wait ~ n x 400 / 4 = n x 100 ms; the 10th is at the bound (admitted), the 11th over it.
    const queued = Array.from({ length: 12 }, () => control.admit(() => {}, notRefused));
    expect(queued.filter(Boolean)).to.have.length(10);
    expect(control.estimatedWaitMs()).to.be.above(1_000);
  });

  it('under a queue that has not drained for 250 ms the estimate may reach only half the bound', () => {
    const { control, advance } = make({ maxConcurrency: 1, maxQueueMs: 1_000 });
    control.admit(() => {}, notRefused);
    control.admit(() => {}, notRefused);
    expect(control.allowedWaitMs()).to.equal(1_000);
    advance(249);
    expect(control.allowedWaitMs(), 'a burst still draining').to.equal(1_000);
    advance(1);
    expect(control.allowedWaitMs()).to.equal(500);
  });

  it('a burst that arrives over 200 ms and is worked off within the bound is admitted whole', () => {
    const { control, advance, teachServiceTime } = make({ maxConcurrency: 4, maxQueueMs: 1_000 });
    // 40 ms each: 4 places work off 100 requests a second.
    teachServiceTime(40);
    // 36 requests, one every 5.5 ms (a busy process reading a burst of concurrent requests),
    // none finishing meanwhile: the last waits about 33 x 40 / 4 = 330 ms, a third of the bound.
    const tickets = [];
    for (let i = 0; i < 36; i += 1) {
      tickets.push(control.admit(() => {}, notRefused));
      advance(5.5);
    }
    expect(tickets.filter((ticket) => ticket === undefined)).to.have.length(0);
  });

  it('a standing overload lasts through the queue\'s momentary drains, and ends when the queue stays empty for 250 ms', () => {
    const { control, advance } = make({ maxConcurrency: 1, maxQueueMs: 1_000 });
    const running = control.admit(() => {}, notRefused);
    const queued = control.admit(() => {}, notRefused);
    advance(250);
    expect(control.allowedWaitMs()).to.equal(500);
    // The queue drains: the overload still stands a moment later.
    running?.done();
    advance(100);
    expect(control.queued).to.equal(0);
    const next = control.admit(() => {}, notRefused);
    expect(next, 'queued behind the running one').to.not.equal(undefined);
    expect(control.queued).to.equal(1);
    expect(control.allowedWaitMs(), 'a drain of 100 ms').to.equal(500);
    // Drained again and empty for 250 ms: the whole bound is back.
    queued?.done();
    advance(250);
    control.admit(() => {}, notRefused);
    expect(control.allowedWaitMs()).to.equal(1_000);
    next?.done();
  });

  it('a request that steps out (waits on the generator) lends its place to the queue, and counts again when back', () => {
    const { control } = make({ maxConcurrency: 1, maxQueueMs: 60_000 });
    const started: string[] = [];
    const first = control.admit(() => started.push('first'), notRefused);
    const second = control.admit(() => started.push('second'), notRefused);
    expect(started).to.deep.equal(['first']);
    const back = first?.stepOut() ?? (() => {});
    expect(started, 'the lent place went to the queue').to.deep.equal(['first', 'second']);
    expect(control.active).to.equal(1);
    back();
    expect(control.active, 'back: above the limit, neither queued nor refused').to.equal(2);
    const third = control.admit(() => started.push('third'), notRefused);
    expect(control.queued).to.equal(1);
    first?.done();
    expect(started, 'still one over the limit').to.deep.equal(['first', 'second']);
    second?.done();
    expect(started).to.deep.equal(['first', 'second', 'third']);
    third?.done();
    expect(control.active).to.equal(0);
  });

  it('a request whose client went away while it stepped out gives back nothing twice', () => {
    const { control } = make({ maxConcurrency: 2, maxQueueMs: 60_000 });
    const ticket = control.admit(() => {}, notRefused);
    const back = ticket?.stepOut() ?? (() => {});
    ticket?.done();
    back();
    expect(control.active).to.equal(0);
    // Stepping out after the end, and coming back, change nothing either.
    ticket?.stepOut()();
    expect(control.active).to.equal(0);
  });

  it('the service time it estimates with is the time on a place, not the time spent stepped out', () => {
    const { control, advance } = make({ maxConcurrency: 4, maxQueueMs: 1_000 });
    // 200 requests of 40 ms on a place around 2 s on the generator each.
    for (let i = 0; i < 200; i += 1) {
      const ticket = control.admit(() => {}, notRefused);
      advance(20);
      const back = ticket?.stepOut() ?? (() => {});
      advance(2_000);
      back();
      advance(20);
      ticket?.done();
    }
    Array.from({ length: 4 }, () => control.admit(() => {}, notRefused));
    // Queued n-th waits ~ n x 40 / 4 ms: 12 queued is ~130 ms; with 2 s per request it would be ~6 s.
    const queued = Array.from({ length: 12 }, () => control.admit(() => {}, notRefused));
    expect(queued.every(Boolean)).to.equal(true);
    expect(control.estimatedWaitMs()).to.be.within(100, 150);
  });

  it('the limit shrinks by a tenth while the event loop lags, down to its floor', () => {
    const { control, setDelay } = make();
    expect(control.limit).to.equal(32);
    setDelay(200);
    control.adjust();
    expect(control.limit).to.equal(28);
    for (let i = 0; i < 100; i += 1) control.adjust();
    expect(control.limit).to.equal(4);
  });

  it('the limit shrinks when more callers wait for a database connection than the pool serves in three rounds, not before', () => {
    const { control, setDatabaseWaiting } = make({ databaseConnections: 10 });
    for (let i = 0; i < 40; i += 1) control.admit(() => {}, notRefused);
    setDatabaseWaiting(30);
    control.adjust();
    expect(control.limit, 'three rounds of a pool of 10 waiting: the pool is busy, not congested').to.be.above(32);
    const grown = control.limit;
    setDatabaseWaiting(31);
    control.adjust();
    expect(control.limit).to.equal(Math.floor(grown * 0.9));
  });

  it('the limit grows while it is reached and the loop keeps up (by half far from the target, by a twentieth near it), up to ADMISSION_MAX_CONCURRENCY; it stays put when not reached', () => {
    const { control, setDelay } = make({ maxConcurrency: 100, maxQueueMs: 60_000 });
    control.adjust();
    expect(control.limit, 'not reached: unchanged').to.equal(32);
    for (let i = 0; i < 40; i += 1) control.admit(() => {}, notRefused);
    setDelay(40);
    control.adjust();
    expect(control.limit, 'near the target').to.equal(33);
    setDelay(0);
    control.adjust();
    expect(control.limit, 'far from it').to.equal(50);
    for (let i = 0; i < 60; i += 1) control.admit(() => {}, notRefused);
    for (let i = 0; i < 5; i += 1) control.adjust();
    expect(control.limit).to.equal(100);
  });
});
