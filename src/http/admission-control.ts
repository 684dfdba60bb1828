// R52: load shedding of API requests on one instance, before the application runs.
//
// The signal: the wait a new request would have before its work starts, estimated at a
// concurrency limiter. At most `limit` API requests run at once; the others wait in a FIFO
// queue. A newcomer's wait is (requests queued ahead + 1) x mean service time / limit (Little's
// law on the measured service time of the requests that ran). When that estimate is above the
// allowed wait, the request is refused at once with 503 and Retry-After, before authentication.
//
// Why this signal: in Node every admitted request shares one event loop, so without a limit an
// overload turns into processor sharing: all requests slow down together and every caller's
// latency becomes a timeout (measured: 2x capacity open loop, p50 8.9 s). A limit turns the
// excess into a queue whose wait can be estimated, and a queue that would be too long into a
// quick refusal. Event-loop delay alone cannot say how long a request will wait (a request
// needs a dozen loop turns, and the lag rises only after thousands are in flight); latency
// gradients are fooled by the generator's own latency, which is seconds and varies.
//
// The limit adapts (AIMD) to the two resources every request needs, the event loop and the
// database pool: every tick the loop's delay is read (perf_hooks.monitorEventLoopDelay) and
// the pool's queue is looked at; when the delay is above the target or more callers queue for a
// database connection than the pool serves in three rounds (DATABASE_WAITING_ROUNDS) the limit
// shrinks by a tenth; while the limit was reached and the loop kept up it grows, by half when
// the delay is under half the target and by a twentieth (at least 1) nearer to it, between
// MIN_LIMIT and ADMISSION_MAX_CONCURRENCY. CPU-bound work (text reports) settles where the
// loop just keeps up; waiting on a generator (seconds, no CPU) lets it grow to the ceiling.
// Better still, a request waiting on the generator lends its place to the queue for that wait
// (stepOut, through src/shared/outside-wait.ts), so such waits neither fill the places nor
// stretch the mean service time of the estimate, which is the time on a place.
//
// A queue that drains absorbs a burst: a newcomer may wait up to ADMISSION_MAX_QUEUE_MS, the
// ruling's own definition of saturation, so a burst of concurrent requests that the instance
// works off within the bound is served whole, however slowly it arrives on a busy machine. A
// queue that has not been empty for 250 ms is not a burst but a standing overload (CoDel's
// "bad queue"): from then on, until the queue has stayed empty for 250 ms, the estimate may
// reach only half the bound. The state holds through the queue's momentary drains, so a
// steady overload does not get a new burst allowance each time the refusals empty the queue.
// Why half, under a standing overload. The estimate is a mean and the waits around it spread
// wide on a busy machine, and the 201s' latency is the wait plus the work: aiming at the whole
// bound puts the slow tail past it. And a queue here has a hidden twin in front of it: clients
// whose answers are slow open more connections, and a saturated Node process takes new
// connections off the kernel's accept queue only one per event-loop turn and listening socket
// (libuv's uv__server_io accepts once per readiness event; hence the accept sockets of
// accept-sockets.ts, which made that queue short). Lower is worse for goodput: a queue aimed at
// a tenth of the bound runs dry between arrivals and the process idles with work refused.
// Measured at 2x capacity, open loop (bench/README.md, runs of one hour): a tenth gave goodput
// 0.73-0.86 C with a 201 p99 of about 200 ms; 30%, 0.81 C and 460 ms; half, 0.95-0.96 C and
// 670 ms, refusals p99 32 ms either way. Over more runs and hours, half gives 0.77-1.03 C
// (median 0.87-0.90) and a quarter 0.76-0.85 C: the runs vary more than the settings do, because
// what a 201 costs under overload (hundreds queued, hundreds of connections) rises by 3-33%,
// by a different amount in each run, with a processor of its own too (bench/README.md,
// "Overload (R52)", 9). A 50 ms threshold refused part of a burst of 60
// concurrent requests on a loaded machine; 250 ms, held through the drains, does not.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Place } from '../shared/outside-wait.ts';

interface AdmissionControlOptions {
  /** ADMISSION_MAX_QUEUE_MS: the longest wait before its work starts that a request is admitted to. */
  maxQueueMs: number;
  /** ADMISSION_MAX_CONCURRENCY: the ceiling of the adaptive limit. */
  maxConcurrency: number;
  /** The clock in ms (tests). */
  now?: () => number;
  /** Event-loop delay of the last tick in ms (tests); the process's own by default. */
  loopDelayMs?: () => number;
  /** Callers queued for a database connection (the pg pool's waitingCount); none when absent. */
  databaseWaiting?: () => number;
  /** The pool's connections (DB_POOL_SIZE), to read databaseWaiting against. */
  databaseConnections?: number;
}

/**
 * A request admitted now or later; done() ends it (or takes it out of the queue), once. As its
 * Place, stepOut() gives its place to the queue while it waits on the generator; when it comes
 * back it counts again, above the limit if need be (it is never queued or refused then).
 */
export interface AdmissionTicket extends Place {
  done(): void;
  /**
   * The client went away: a request still queued leaves the queue (done); a started one keeps
   * its place until its work ends and done() is called (its database steps run on, and the
   * places bound what runs).
   */
  abandon(): void;
}

/** Where the limit starts, and its floor. */
const INITIAL_LIMIT = 32;
const MIN_LIMIT = 4;
/** How often the limit is adjusted. */
const TICK_MS = 100;
/**
 * The event-loop delay above which the loop is falling behind. A request needs about ten turns
 * of the loop, so 50 ms a turn is half a second of added latency; below that, on a shared
 * machine, the delay says more about the neighbours' CPU use than about this process's queue
 * (measured: a 30 ms target held the limit at 4 to 14 and cut the closed-loop capacity by 60%).
 */
const LOOP_DELAY_TARGET_MS = 50;
/** The service time assumed before any request has been measured. */
const PRIOR_SERVICE_MS = 50;
/** Weight of the newest service time in the mean. */
const EWMA_WEIGHT = 0.05;
/**
 * How many rounds of the pool's connections may wait for one before the database counts as
 * congested. A caller waits for a connection while the others run a statement each, a
 * millisecond or two; waits of a few rounds keep every connection busy, which is the point.
 * Measured (bench/README.md, "Overload (R52)"): at one round the limit settled at about twice
 * the pool, the pool sometimes ran dry between rounds, and the closed-loop capacity with
 * shedding on came out below the one without it in 9 of 13 runs, by up to a quarter; at three
 * rounds the limit settles near five times the pool, and it came out below in 2 of 9 runs.
 */
const DATABASE_WAITING_ROUNDS = 3;
/** Under a standing queue, the share of ADMISSION_MAX_QUEUE_MS the estimate may reach. */
const STANDING_SHARE = 0.5;
/**
 * How long a queue must have stood (not drained) to count as a standing overload, and how long
 * it must then stay empty for the overload to be over.
 */
const STANDING_AFTER_MS = 250;

interface Waiter {
  readonly run: () => void;
  /** Called instead of run when it waited in the queue past the bound. */
  readonly refuse: () => void;
  readonly since: number;
  started: boolean;
  done: boolean;
  /** When its current spell on a place began. */
  startedAt: number;
  /** Time on a place in earlier spells (before stepping out). */
  placeMs: number;
  out: boolean;
}

export class AdmissionControl {
  readonly #maxQueueMs: number;
  readonly #maxLimit: number;
  readonly #minLimit: number;
  /** STANDING_AFTER_MS, at most the bound. */
  readonly #standingAfterMs: number;
  readonly #now: () => number;
  readonly #loopDelayMs: () => number;
  readonly #databaseWaiting: () => number;
  /** Callers waiting for a database connection beyond which the database is congested. */
  readonly #databaseWaitingBound: number;
  readonly #histogram: ReturnType<typeof monitorEventLoopDelay> | undefined;
  readonly #timer: NodeJS.Timeout;
  #limit: number;
  #active = 0;
  /** Insertion-ordered: a FIFO whose members can also leave from the middle (a client that went away). */
  readonly #queue = new Set<Waiter>();
  #serviceMs = PRIOR_SERVICE_MS;
  /** When the queue last turned from empty to non-empty or back. */
  #queueChangedAt: number;
  /** Whether a standing overload holds (see the head of this file). */
  #standing = false;
  /** Whether the limit was reached during the current tick. */
  #bound = false;

  constructor(options: AdmissionControlOptions) {
    this.#maxQueueMs = options.maxQueueMs;
    this.#maxLimit = options.maxConcurrency;
    this.#minLimit = Math.min(MIN_LIMIT, options.maxConcurrency);
    this.#standingAfterMs = Math.min(options.maxQueueMs, STANDING_AFTER_MS);
    this.#limit = Math.min(INITIAL_LIMIT, options.maxConcurrency);
    this.#now = options.now ?? (() => performance.now());
    this.#databaseWaiting = options.databaseWaiting ?? (() => 0);
    this.#databaseWaitingBound = DATABASE_WAITING_ROUNDS * (options.databaseConnections ?? 0);
    if (options.loopDelayMs) this.#loopDelayMs = options.loopDelayMs;
    else {
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      this.#histogram = histogram;
      this.#loopDelayMs = () => histogram.max / 1e6;
    }
    this.#queueChangedAt = this.#now();
    this.#timer = setInterval(() => this.adjust(), TICK_MS).unref();
  }

  /** The concurrency limit now. */
  get limit(): number {
    return this.#limit;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queue.size;
  }

  /** The estimated wait before its work starts of a request arriving now, in ms. */
  estimatedWaitMs(): number {
    if (this.#active < this.#limit && this.#queue.size === 0) return 0;
    return ((this.#queue.size + 1) * this.#serviceMs) / this.#limit;
  }

  /** The wait a newcomer may be admitted to now: the whole bound, or half of it under a standing overload. */
  allowedWaitMs(): number {
    this.#updateStanding(this.#now());
    return this.#standing ? this.#maxQueueMs * STANDING_SHARE : this.#maxQueueMs;
  }

  /**
   * Admits a request: `run` is called with its ticket now, or when a place frees up; undefined
   * means refused (saturated) and `run` is never called. A queued request still waiting when
   * ADMISSION_MAX_QUEUE_MS has passed is refused after all: `refuse` is called instead of `run`
   * (the estimate it was admitted on was wrong: a database that stopped answering holds every
   * place until its statements time out). The caller calls done() when the request ended.
   */
  admit(run: (ticket: AdmissionTicket) => void, refuse: () => void): AdmissionTicket | undefined {
    const now = this.#now();
    this.#refuseExpired(now);
    if (this.#active < this.#limit && this.#queue.size === 0) {
      const { waiter, ticket } = this.#enlist(run, refuse, now, true);
      this.#active += 1;
      if (this.#active >= this.#limit) this.#bound = true;
      waiter.run();
      return ticket;
    }
    this.#bound = true;
    // Refused when the estimate says the wait would be too long, or when the oldest request in
    // the queue has already waited that long (its measured sojourn, as CoDel reads a queue: the
    // estimate's mean service time lags behind a load that just grew).
    const allowed = this.allowedWaitMs();
    if (this.estimatedWaitMs() > allowed || this.#oldestWaitMs(now) > allowed) return undefined;
    const { waiter, ticket } = this.#enlist(run, refuse, now, false);
    if (this.#queue.size === 0) this.#queueTurned(now);
    this.#queue.add(waiter);
    return ticket;
  }

  /** One tick of the AIMD limit (run by the timer; public for tests). */
  adjust(): void {
    const delay = this.#loopDelayMs();
    this.#histogram?.reset();
    // Requests queued for a database connection, more than the pool serves in a few rounds,
    // wait before their work as surely as requests queued here (and time out at
    // DB_CONNECT_TIMEOUT_MS with a 503 that says the database is unavailable): fewer are let in.
    const congested = delay > LOOP_DELAY_TARGET_MS || this.#databaseWaiting() > this.#databaseWaitingBound;
    if (congested) this.#limit = Math.max(this.#minLimit, Math.floor(this.#limit * 0.9));
    else if (this.#bound) {
      // Far from the target (requests waiting on the generator, not on the CPU) the limit grows
      // by half, so a burst of slow creations is not held in waves; near it, by a twentieth.
      const step = delay <= LOOP_DELAY_TARGET_MS / 2 ? Math.ceil(this.#limit / 2) : Math.max(1, Math.floor(this.#limit / 20));
      this.#limit = Math.min(this.#maxLimit, this.#limit + step);
    }
    this.#bound = this.#active >= this.#limit || this.#queue.size > 0;
    this.#startWaiting();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#histogram?.disable();
  }

  /**
   * R52: no request waits in the queue longer than ADMISSION_MAX_QUEUE_MS before its work
   * starts. The queue is in arrival order, so the expired ones are at its head. Checked on
   * every arrival and whenever queued requests may start (every tick, every place freed), so a
   * request is refused at most a tick (100 ms) past the bound.
   */
  #refuseExpired(now: number): void {
    for (const waiter of this.#queue) {
      if (now - waiter.since <= this.#maxQueueMs) break;
      if (this.#queue.size === 1) this.#queueTurned(now);
      this.#queue.delete(waiter);
      waiter.done = true;
      waiter.refuse();
    }
  }

  #oldestWaitMs(now: number): number {
    const oldest = this.#queue.values().next();
    return oldest.done ? 0 : now - oldest.value.since;
  }

  /**
   * A queue that has been in its state (non-empty or empty) for STANDING_AFTER_MS (at most the
   * bound) decides the overload state: standing when non-empty, over when empty. Shorter spells
   * leave the state as it was.
   */
  #updateStanding(now: number): void {
    if (now - this.#queueChangedAt >= this.#standingAfterMs) this.#standing = this.#queue.size > 0;
  }

  /** Called just before the queue turns from empty to non-empty or back. */
  #queueTurned(now: number): void {
    this.#updateStanding(now);
    this.#queueChangedAt = now;
  }

  /** A request arriving at `now`, started at once or not, and its ticket, which `run` is given. */
  #enlist(run: (ticket: AdmissionTicket) => void, refuse: () => void, now: number, started: boolean): { waiter: Waiter; ticket: AdmissionTicket } {
    const waiter: Waiter = { run: () => run(ticket), refuse, since: now, started, done: false, startedAt: started ? now : 0, placeMs: 0, out: false };
    const ticket = this.#ticket(waiter);
    return { waiter, ticket };
  }

  #ticket(waiter: Waiter): AdmissionTicket {
    const ticket: AdmissionTicket = {
      abandon: () => {
        if (!waiter.started) ticket.done();
      },
      done: () => {
        if (waiter.done) return;
        waiter.done = true;
        if (!waiter.started) {
          if (this.#queue.size === 1) this.#queueTurned(this.#now());
          this.#queue.delete(waiter);
          return;
        }
        // The mean service time is the time on a place: what frees places for the queue.
        const ms = waiter.placeMs + (waiter.out ? 0 : this.#now() - waiter.startedAt);
        this.#serviceMs += EWMA_WEIGHT * (ms - this.#serviceMs);
        if (waiter.out) return;
        this.#active -= 1;
        this.#startWaiting();
      },
      stepOut: () => {
        if (!waiter.started || waiter.done || waiter.out) return () => {};
        waiter.out = true;
        waiter.placeMs += this.#now() - waiter.startedAt;
        this.#active -= 1;
        this.#startWaiting();
        return () => {
          if (!waiter.out) return;
          waiter.out = false;
          if (waiter.done) return;
          waiter.startedAt = this.#now();
          this.#active += 1;
        };
      },
    };
    return ticket;
  }

  /** Refuses the queued requests past the bound, then starts the others, oldest first, while there are places. */
  #startWaiting(): void {
    this.#refuseExpired(this.#now());
    while (this.#active < this.#limit) {
      const next = this.#queue.values().next();
      if (next.done) break;
      const waiter = next.value;
      if (this.#queue.size === 1) this.#queueTurned(this.#now());
      this.#queue.delete(waiter);
      waiter.started = true;
      waiter.startedAt = this.#now();
      this.#active += 1;
      waiter.run();
    }
  }
}
