// The clock port: use cases ask it for the time so that tests can put "now" at a month or
// year end (spec 2.7, R17: usage periods are UTC calendar months).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stays where a test puts it. */
export class FixedClock implements Clock {
  #now: Date;
  constructor(now: Date | string) {
    this.#now = new Date(now);
  }
  now(): Date {
    return new Date(this.#now);
  }
  set(now: Date | string): void {
    this.#now = new Date(now);
  }
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}
