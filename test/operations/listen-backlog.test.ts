// Ruling R37: the listen backlog is LISTEN_BACKLOG (default 4096, capped by the kernel's
// somaxconn), so a burst of new connections queues instead of being refused. The process is
// stopped (SIGSTOP) while 2,000 connections arrive: only the kernel's accept queue can hold
// them. With the default every one completes its handshake, and once the process runs again
// every one is answered; with a small LISTEN_BACKLOG most of them cannot (the test can fail).
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { testDatabaseUrl } from '../support/database.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';

const BURST = 2_000;
const HANDSHAKE_WAIT_MS = 1_500;

/** Opens `count` connections at once; resolves with the sockets whose handshake completed in time. */
async function burst(port: number, count: number): Promise<{ open: Socket[]; all: Socket[] }> {
  const all: Socket[] = [];
  const open: Socket[] = [];
  await Promise.all(
    Array.from({ length: count }, () => {
      const socket = connect(port, '127.0.0.1');
      all.push(socket);
      socket.on('error', () => {});
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, HANDSHAKE_WAIT_MS);
        socket.once('connect', () => {
          clearTimeout(timer);
          open.push(socket);
          resolve();
        });
        socket.once('error', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }),
  );
  return { open, all };
}

function answer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\r\n\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
    });
    socket.on('close', () => resolve(text.slice(0, text.indexOf('\r\n'))));
    socket.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n');
  });
}

describe('a deep listen backlog queues a burst of connections (R37)', function () {
  this.timeout(120_000);
  let server: ServerProcess | undefined;

  afterEach(() => {
    if (server) process.kill(server.child.pid ?? 0, 'SIGCONT');
    server?.kill();
  });

  async function start(env: Record<string, string> = {}): Promise<number> {
    server = startServerProcess({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'info', ...env });
    return Number(new URL(String((await server.waitForLog('listening', 45_000)).url)).port);
  }

  it(`by default, ${BURST} connections arriving while the process cannot accept are all queued, then all answered`, async () => {
    const port = await start();
    const pid = server?.child.pid as number;
    process.kill(pid, 'SIGSTOP');
    const { open, all } = await burst(port, BURST);
    process.kill(pid, 'SIGCONT');
    try {
      expect(open.length, 'handshakes completed while the process was stopped').to.equal(BURST);
      const statuses = await Promise.all(open.map(answer));
      expect(statuses.filter((line) => line === 'HTTP/1.1 200 OK').length).to.equal(BURST);
    } finally {
      for (const socket of all) socket.destroy();
    }
  });

  it('with LISTEN_BACKLOG=64 the same burst overflows the queue (the setting is what holds them)', async () => {
    const port = await start({ LISTEN_BACKLOG: '64' });
    const pid = server?.child.pid as number;
    process.kill(pid, 'SIGSTOP');
    const { open, all } = await burst(port, BURST);
    process.kill(pid, 'SIGCONT');
    for (const socket of all) socket.destroy();
    expect(open.length).to.be.below(BURST / 2);
  });
});
