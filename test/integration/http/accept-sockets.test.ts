// The API port's accept sockets (R37, R51, R52): a turn of a busy event loop takes several new
// connections off the kernel's queues, not one; MAX_CONNECTIONS bounds the connections of all
// the sockets together (R51); a port in use still fails the start with EADDRINUSE, whether a
// plain socket or another instance of the service holds it.
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { listenOnAcceptSockets, type AcceptSockets } from '../../../src/http/accept-sockets.ts';

const OPTIONS = {
  host: '127.0.0.1',
  backlog: 511,
  maxConnections: 10_000,
  onAcceptError: (error: NodeJS.ErrnoException): void => {
    throw error;
  },
  onRefused: (): void => {},
};

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

  it('MAX_CONNECTIONS bounds the connections of every accept socket together (R51)', async () => {
    const MAX = 10;
    // Enough that the kernel's spread sends some of the excess to the HTTP server's own socket
    // and some to the others (none to one of them: below 1 in 100,000).
    const COUNT = 100;
    server = createServer();
    // Node emits 'drop' for a connection its own listening socket refused at maxConnections.
    let droppedByOwnSocket = 0;
    server.on('drop', () => (droppedByOwnSocket += 1));
    const open = new Set<Socket>();
    server.on('connection', (connection: Socket) => {
      open.add(connection);
      connection.once('close', () => open.delete(connection));
    });
    let refused = 0;
    sockets = await listenOnAcceptSockets(server, { ...OPTIONS, maxConnections: MAX, port: 0, onRefused: () => (refused += 1) });
    const { port } = sockets.address;
    let closedByServer = 0;
    const clients = Array.from({ length: COUNT }, () => {
      const client = connect(port, '127.0.0.1');
      client.on('error', () => {});
      client.once('close', () => (closedByServer += 1));
      return client;
    });
    try {
      const until = performance.now() + 5_000;
      while (closedByServer < COUNT - MAX && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      // A moment more: no connection past the bound may stay.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(closedByServer, 'connections past the bound closed').to.equal(COUNT - MAX);
      expect(sockets.connections()).to.equal(MAX);
      expect(open.size).to.equal(MAX);
      // The excess was refused on both kinds of socket: the bound held across them, not on one.
      expect(droppedByOwnSocket, "refused by the HTTP server's own socket").to.be.above(0);
      expect(droppedByOwnSocket, 'refused by the other sockets').to.be.below(COUNT - MAX);
      // Every refusal, on either kind of socket, is reported (and logged by the service).
      expect(refused, 'each refused connection reported').to.equal(COUNT - MAX);
    } finally {
      for (const client of clients) client.destroy();
    }
  });

  it('an accept that fails (out of file descriptors) goes to onAcceptError and the port keeps serving (R51)', async () => {
    // libuv reports an accept it could not make (EMFILE past its reserve descriptor, ENFILE,
    // ENOBUFS) as the listening server's 'error'; with no listener node throws it and the
    // process ends.
    server = createServer((_req, res) => res.end('ok'));
    const errors: string[] = [];
    sockets = await listenOnAcceptSockets(server, { ...OPTIONS, port: 0, onAcceptError: (error) => errors.push(String(error.code)) });
    server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }));
    expect(errors).to.deep.equal(['EMFILE']);
    const answer = await fetch(`http://127.0.0.1:${sockets.address.port}/`);
    expect(await answer.text()).to.equal('ok');
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
