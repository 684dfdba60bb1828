// The API port's accept sockets (R37, R51, R52): a turn of a busy event loop takes several new
// connections off the kernel's queues, not one; a port in use still fails the start with
// EADDRINUSE, whether a plain socket or another instance of the service holds it.
// (MAX_CONNECTIONS over all sockets: edge-bounds.test.ts.)
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { listenOnAcceptSockets, type AcceptSockets } from '../../../src/http/accept-sockets.ts';

const OPTIONS = { host: '127.0.0.1', backlog: 511, maxConnections: 10_000 };

/** A client on its own event loop: opens `count` connections when told, reports when all are up. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const sockets = [];
parentPort.once('message', () => {
  let up = 0;
  for (let i = 0; i < workerData.count; i++) {
    const s = net.connect(workerData.port, '127.0.0.1', () => { if (++up === workerData.count) parentPort.postMessage('up'); });
    s.on('error', () => {});
    sockets.push(s);
  }
});
`;

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the API port takes new connections on several sockets at once (R37, R52)', () => {
  let server: Server | undefined;
  let sockets: AcceptSockets | undefined;
  let worker: Worker | undefined;

  afterEach(async () => {
    await worker?.terminate();
    server?.closeAllConnections();
    await sockets?.close();
    server = undefined;
    sockets = undefined;
    worker = undefined;
  });

  it('connections that queued while the loop was busy are accepted several in one turn of it', async () => {
    const COUNT = 64;
    server = createServer((_req, res) => res.end('ok'));
    let accepted = 0;
    server.on('connection', () => (accepted += 1));
    sockets = await listenOnAcceptSockets(server, { ...OPTIONS, port: 0 });
    worker = new Worker(CLIENT, { eval: true, workerData: { port: sockets.address.port, count: COUNT } });
    await new Promise((resolve) => worker!.once('online', resolve));

    // The client connects while this loop is blocked: the kernel completes the handshakes and
    // queues the connections on the listening sockets it spread them over.
    const up = new Promise((resolve) => worker!.once('message', resolve));
    worker.postMessage('go');
    busy(400);
    // Turn by turn: how many connections each turn accepted (a check-phase callback per turn).
    const perTurn: number[] = [];
    await new Promise<void>((resolve) => {
      let before = accepted;
      const turn = () => {
        perTurn.push(accepted - before);
        before = accepted;
        if (accepted >= COUNT || perTurn.length > 10_000) resolve();
        else setImmediate(turn);
      };
      setImmediate(turn);
    });
    await up;

    expect(accepted).to.equal(COUNT);
    expect(Math.max(...perTurn), `accepted per turn: ${perTurn.filter((n) => n > 0).join(', ')}`).to.be.above(1);
    // With one listening socket it would have taken COUNT turns with an accept in each.
    expect(perTurn.filter((n) => n > 0).length).to.be.below(COUNT);
  });

  it('a port that a plain socket holds fails with EADDRINUSE', async () => {
    const holder = createNetServer();
    await new Promise<void>((resolve) => holder.listen({ port: 0, host: OPTIONS.host }, resolve));
    try {
      const { port } = holder.address() as AddressInfo;
      const error = await listenOnAcceptSockets(createServer(), { ...OPTIONS, port }).then(
        () => undefined,
        (e: NodeJS.ErrnoException) => e,
      );
      expect(error?.code).to.equal('EADDRINUSE');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a port that another instance holds fails with EADDRINUSE instead of sharing its traffic', async () => {
    server = createServer();
    sockets = await listenOnAcceptSockets(server, { ...OPTIONS, port: 0 });
    const second = createServer();
    const error = await listenOnAcceptSockets(second, { ...OPTIONS, port: sockets.address.port }).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(error?.code).to.equal('EADDRINUSE');
    expect(second.listening).to.equal(false);
  });
});
