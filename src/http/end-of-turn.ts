// Answers leave at the end of the event-loop turn, all together (R52: goodput under overload).
//
// Writing an answer to a socket whose client sleeps wakes that client, and on loopback or a
// virtual machine the wake-up is most of the write's cost: in a profile of the service at twice
// its capacity, a refusal's one write took about 50 µs, where a whole refusal took 23 µs in a
// test whose client never slept, and the answers' writes were 7% of the busy event loop.
// Written one by one as each request finishes (in the middle of reading the database's results
// and the next requests), every write finds its client asleep again. Written back to back after
// the turn's I/O callbacks (the check phase, setImmediate), the first one wakes a client and the
// others find it awake. This is the batching Nagle and interrupt coalescing do, across
// connections, and it costs an answer at most the rest of the turn it was ready in
// (microseconds when the process is idle).
//
// Measured in profiles of the service at 2C (bench/README.md, "Overload (R52)"): a refusal's
// write fell from about 50 µs to 28 µs, and the answers' writes from 7.4% to 4.5% of the loop.
import type { Middleware } from 'koa';

let turn: Promise<void> | undefined;

/**
 * Resolves in the check phase of the current event-loop turn (after its I/O callbacks). Every
 * caller of one turn shares one immediate, and their continuations run back to back.
 */
export function endOfTurn(): Promise<void> {
  turn ??= new Promise((resolve) =>
    setImmediate(() => {
      // A caller in the continuations below waits for the next turn, not this one.
      turn = undefined;
      resolve();
    }),
  );
  return turn;
}

/**
 * The outermost Koa middleware: once the application has decided its answer, Koa writes it at
 * the end of the turn, with the other answers of that turn. A request that failed past every
 * middleware (Koa's own error answer) is not held. R35: an answer written while the instance
 * drains says `connection: close`, whenever its request arrived (a request that was in flight
 * or queued when SIGTERM came would otherwise leave its client a connection about to close).
 */
export function answerAtEndOfTurn(draining: () => boolean = () => false): Middleware {
  return async (ctx, next) => {
    await next();
    await endOfTurn();
    if (draining() && !ctx.headerSent) ctx.set('connection', 'close');
  };
}
