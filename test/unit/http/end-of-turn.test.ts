// R52: answers leave at the end of the event-loop turn, together (src/http/end-of-turn.ts): every
// caller of a turn shares one immediate and resumes after the pending microtasks; a caller in
// those continuations waits for the next turn; the Koa middleware holds a decided answer until
// then, and does not hold an error that escaped the application.
import { expect } from 'chai';
import type { Context } from 'koa';
import { answerAtEndOfTurn, endOfTurn } from '../../../src/http/end-of-turn.ts';

/** Settles pending microtasks (not the turn). */
const microtasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('answers at the end of the event-loop turn (R52)', () => {
  it('every caller of one turn shares one end of turn, reached after the pending microtasks', async () => {
    const order: string[] = [];
    const first = endOfTurn();
    const second = endOfTurn();
    expect(first).to.equal(second);
    const both = Promise.all([first.then(() => order.push('first')), second.then(() => order.push('second'))]);
    await microtasks();
    order.push('microtasks');
    await both;
    expect(order).to.deep.equal(['microtasks', 'first', 'second']);
  });

  it('a caller resuming at the end of a turn waits for the next one', async () => {
    const first = endOfTurn();
    await first;
    const next = endOfTurn();
    expect(next).to.not.equal(first);
    let settled = false;
    void next.then(() => (settled = true));
    await microtasks();
    expect(settled, 'not within the same turn').to.equal(false);
    await next;
    expect(settled).to.equal(true);
  });

  it('the middleware resolves, so Koa answers, only at the end of the turn the application decided in', async () => {
    const middleware = answerAtEndOfTurn();
    let decided = false;
    let answered = false;
    const done = middleware({} as Context, async () => {
      decided = true;
    }).then(() => (answered = true));
    await microtasks();
    await microtasks();
    expect(decided).to.equal(true);
    expect(answered, 'held within the turn').to.equal(false);
    await done;
    expect(answered).to.equal(true);
  });

  it('an error that escaped the application is not held: it rejects at once', async () => {
    const middleware = answerAtEndOfTurn();
    let rejected: unknown;
    const failing = middleware({} as Context, () => Promise.reject(new Error('boom'))).catch((error: unknown) => (rejected = error));
    await microtasks();
    await microtasks();
    expect(rejected).to.be.instanceOf(Error);
    await failing;
  });
});
