// A real HAProxy (the Debian package `haproxy`) in front of service instances, for the
// rolling-restart test (R35). The configuration is the one the README's deployment guide shows
// (a test holds the two equal); the process runs in the foreground as a child of the test and
// its runtime API (a unix socket) tells which servers HAProxy sees up.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HaproxySite {
  /** The frontend's bind address, `127.0.0.1:8080` or `:80`. */
  bind: string;
  /** Backend servers: name and `host:port`. */
  servers: readonly { name: string; address: string }[];
  /** Path of the runtime API socket. */
  statsSocket: string;
}

/**
 * Health check on /readyz every second; one failed check takes a server out (fall 1), two good
 * ones bring it back (rise 2). Retries only on `conn-failure`, a connection that could not be
 * established, so the request was never sent: a POST is never sent twice by the load balancer.
 */
export function haproxyConfig(site: HaproxySite): string {
  return `global
    maxconn 4096
    stats socket ${site.statsSocket} mode 600 level admin

defaults
    mode http
    timeout connect 2s
    timeout client 65s
    timeout server 65s
    timeout http-request 10s
    timeout check 2s
    retries 3
    retry-on conn-failure
    option redispatch 1

frontend evidence_report_api
    bind ${site.bind}
    default_backend evidence_report_service

backend evidence_report_service
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 1s fall 1 rise 2
${site.servers.map(({ name, address }) => `    server ${name} ${address} check`).join('\n')}
`;
}

/** The haproxy binary: HAPROXY_BIN, else PATH, else the sbin directories Debian installs to. */
export function findHaproxy(): string {
  if (process.env.HAPROXY_BIN) return process.env.HAPROXY_BIN;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  const found = dirs.filter(Boolean).map((dir) => join(dir, 'haproxy')).find((path) => existsSync(path));
  // A missing load balancer fails the test, never skips it: CI installs it (.ci/run).
  if (!found) throw new Error('haproxy not found: install it (`apt-get install -y haproxy`) or set HAPROXY_BIN');
  return found;
}

/** A loopback port free right now (the kernel's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts a TCP connection on the loopback port now (a started server is up). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export type ServerStats = Record<string, string>;

export interface Haproxy {
  readonly port: number;
  readonly config: string;
  /** `show stat` rows of the backend's servers and the backend itself (svname BACKEND), by svname. */
  stats(): Promise<Map<string, ServerStats>>;
  /** Resolves when HAProxy reports `server` in `status` (UP, DOWN); fails after `timeoutMs`. */
  waitForStatus(server: string, status: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startHaproxy(servers: readonly { name: string; port: number }[]): Promise<Haproxy> {
  const binary = findHaproxy();
  const dir = await mkdtemp(join(tmpdir(), 'ers-haproxy-'));
  const port = await freePort();
  const socket = join(dir, 'admin.sock');
  const config = haproxyConfig({
    bind: `127.0.0.1:${port}`,
    servers: servers.map(({ name, port: serverPort }) => ({ name, address: `127.0.0.1:${serverPort}` })),
    statsSocket: socket,
  });
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  // -db: stay in the foreground, as a child of the test; -q: quiet unless something is wrong.
  const child: ChildProcess = spawn(binary, ['-db', '-q', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stats = async (): Promise<Map<string, ServerStats>> => {
    const csv = await command(socket, 'show stat');
    const [header, ...rows] = csv.split('\n').filter((line) => line !== '');
    const names = (header ?? '').replace(/^# /, '').split(',');
    const result = new Map<string, ServerStats>();
    for (const row of rows) {
      const fields = row.split(',');
      const entry = Object.fromEntries(names.map((name, i) => [name, fields[i] ?? '']));
      if (entry.pxname === 'evidence_report_service') result.set(entry.svname as string, entry);
    }
    return result;
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited at start: ${stderr}`);
    if (await stats().then(() => true, () => false)) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not open its runtime API within 10 s: ${stderr}`);
    await sleep(50);
  }

  return {
    port,
    config,
    stats,
    async waitForStatus(server, status, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      let seen = '';
      while (Date.now() < until) {
        seen = (await stats()).get(server)?.status ?? 'absent';
        if (seen === status) return;
        await sleep(50);
      }
      throw new Error(`haproxy did not see ${server} ${status} within ${timeoutMs} ms (last: ${seen})`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One runtime API command; the answer ends when HAProxy closes the connection. */
function command(socketPath: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(5_000, () => socket.destroy(new Error(`haproxy runtime API: no answer to "${line}"`)));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(answer));
    socket.on('connect', () => socket.end(`${line}\n`));
  });
}
