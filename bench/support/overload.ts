// R52 under load (BENCH_ONLY=overload): the capacity C of text POSTs (closed loop, 50
// connections), then 2C offered open loop for 15 s, with admission control on and then off.
//
// Open loop means the requests are sent on a fixed schedule whatever the answers do: a request
// is due at start + i / rate, goes out on an idle keep-alive connection or a new one (up to
// MAX_SOCKETS), else waits in the sender's queue; its latency runs from the moment it was due,
// so a server that falls behind is charged for every request it delayed (no coordinated
// omission). Both loops use the same small HTTP/1.1 client on raw sockets (content-length
// framing, which every answer of the service has), so C and the offered load are measured with
// the same client cost; it needs a fraction of the CPU node:http or autocannon would.
import { appendFileSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { CpuShare } from './cpu-share.ts';
import { round } from './round.ts';

export interface OverloadSpec {
  url: string;
  /** The request, as bytes on the wire. */
  request: Buffer;
}

export interface Outcomes {
  /** Seconds the requests were offered (or the closed loop ran). */
  seconds: number;
  offered: number;
  answered: number;
  statuses: Record<string, number>;
  /** Non-201 answers that were 503 with Retry-After. */
  refusals503WithRetryAfter: number;
  goodputPerSec: number;
  p50Of201Ms: number;
  p99Of201Ms: number;
  p99OfRefusalsMs: number;
  /**
   * p99 of the refusals sent on a connection that had carried an answer before: without the
   * TCP handshake and the wait in the service's accept queue that a new connection pays.
   */
  p99OfRefusalsEstablishedMs: number;
  /** Requests not answered within TIMEOUT_MS of being due (never sent, or sent and unanswered). */
  timeouts: number;
  socketErrors: number;
  peakConnections: number;
  /** p99 of how late the sender itself put requests on the wire (its own CPU starvation). */
  senderLagP99Ms: number;
  /**
   * Connections the kernel dropped during the run because a listen queue on the machine was full
   * (TcpExt ListenOverflows; each costs its client a SYN retransmission, 1 s or more).
   */
  listenOverflows?: number;
  /** Where the processor time went meanwhile (support/cpu-share.ts), when it could be read. */
  cpu?: CpuShare;
}

/** The machine's TcpExt ListenOverflows counter (Linux), or undefined where it cannot be read. */
function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const i = names.indexOf('ListenOverflows');
    return i === -1 ? undefined : Number(values[i]);
  } catch {
    return undefined;
  }
}

const TIMEOUT_MS = 10_000;
/** A file to write every answer of each run to, as CSV (where the slow ones are: start, new connections). */
const TRACE = process.env.BENCH_OVERLOAD_TRACE;
const MAX_SOCKETS = 8_000;

interface Pending {
  readonly due: number;
  /** Sent on a connection opened for it (its latency includes the TCP handshake and accept). */
  fresh: boolean;
  readonly onDone: (status: number, retryAfter: boolean) => void;
  /** The connection closed before the answer. */
  readonly onLost: () => void;
}

/**
 * How long before the server's advertised keep-alive timeout (`Keep-Alive: timeout=N`) an idle
 * connection stops being reused, as HTTP clients do (undici's keepAliveTimeoutThreshold): a
 * request written just as the server closes an idle connection is lost in flight.
 */
const KEEP_ALIVE_MARGIN_MS = 1_000;

class Connection {
  readonly socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #current: Pending | undefined;
  /** Until when the connection may carry another request (set by each answer's Keep-Alive header). */
  #reusableUntil = Number.POSITIVE_INFINITY;
  #onIdle: (connection: Connection) => void;
  #onClose: (connection: Connection, lost: Pending | undefined) => void;

  constructor(host: string, port: number, onIdle: (c: Connection) => void, onClose: (c: Connection, lost: Pending | undefined) => void) {
    this.#onIdle = onIdle;
    this.#onClose = onClose;
    this.socket = connect(port, host);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.#read(chunk));
    this.socket.on('error', () => {});
    this.socket.on('close', () => {
      const lost = this.#current;
      this.#current = undefined;
      this.#onClose(this, lost);
    });
  }

  get busy(): boolean {
    return this.#current !== undefined;
  }

  /** Whether an idle connection may carry another request now (open, and not about to be closed by the server). */
  get reusable(): boolean {
    return !this.socket.destroyed && performance.now() < this.#reusableUntil;
  }

  send(request: Buffer, pending: Pending): void {
    this.#current = pending;
    this.socket.write(request);
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = this.#buffer.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.#buffer.length < end + 4 + length) return;
      this.#buffer = this.#buffer.subarray(end + 4 + length);
      const status = Number(head.slice(9, 12));
      const retryAfter = /\r\nretry-after:\s*\d+/i.test(head);
      const keepAlive = /\r\nkeep-alive:\s*timeout=(\d+)/i.exec(head);
      this.#reusableUntil = keepAlive ? performance.now() + Number(keepAlive[1]) * 1000 - KEEP_ALIVE_MARGIN_MS : Number.POSITIVE_INFINITY;
      const current = this.#current;
      this.#current = undefined;
      current?.onDone(status, retryAfter);
      if (/\r\nconnection:\s*close/i.test(head)) {
        this.socket.destroy();
        return;
      }
      this.#onIdle(this);
    }
  }
}

class Recorder {
  readonly latencies: Record<string, number[]> = {};
  refusals503WithRetryAfter = 0;
  timeouts = 0;
  socketErrors = 0;
  answered = 0;
  readonly lag: number[] = [];
  readonly refusalsEstablished: number[] = [];

  /** Every answer as [due ms, latency ms, status, fresh connection], for BENCH_OVERLOAD_TRACE. */
  readonly trace: [number, number, number, boolean][] = [];

  done(status: number, retryAfter: boolean, ms: number, due: number, fresh: boolean): void {
    if (TRACE) this.trace.push([due, ms, status, fresh]);
    if (ms > TIMEOUT_MS) {
      this.timeouts += 1;
      return;
    }
    this.answered += 1;
    (this.latencies[status] ??= []).push(ms);
    if (status !== 201 && !fresh) this.refusalsEstablished.push(ms);
    if (status === 503 && retryAfter) this.refusals503WithRetryAfter += 1;
  }

  outcomes(seconds: number, offered: number, peakConnections: number): Outcomes {
    const statuses = Object.fromEntries(Object.entries(this.latencies).map(([status, ms]) => [status, ms.length]));
    const created = Float64Array.from(this.latencies['201'] ?? []).sort();
    const refusals = Float64Array.from(Object.entries(this.latencies).flatMap(([status, ms]) => (status === '201' ? [] : ms))).sort();
    return {
      seconds: round(seconds),
      offered,
      answered: this.answered,
      statuses,
      refusals503WithRetryAfter: this.refusals503WithRetryAfter,
      goodputPerSec: round(created.length / seconds, 1),
      p50Of201Ms: round(percentile(created, 50)),
      p99Of201Ms: round(percentile(created, 99)),
      p99OfRefusalsMs: round(percentile(refusals, 99)),
      p99OfRefusalsEstablishedMs: round(percentile(Float64Array.from(this.refusalsEstablished).sort(), 99)),
      timeouts: this.timeouts,
      socketErrors: this.socketErrors,
      peakConnections,
      senderLagP99Ms: round(percentile(Float64Array.from(this.lag).sort(), 99)),
    };
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** A pool of keep-alive connections with a FIFO of requests waiting for one. */
class Sender {
  readonly #host: string;
  readonly #port: number;
  readonly #request: Buffer;
  readonly #idle: Connection[] = [];
  readonly #all = new Set<Connection>();
  readonly #waiting: Pending[] = [];
  readonly recorder = new Recorder();
  peak = 0;
  #closing = false;

  constructor(spec: OverloadSpec) {
    const url = new URL(spec.url);
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#request = spec.request;
  }

  /** Sends one request due at `due` (ms, performance.now()); `then` runs when it is answered or lost. */
  offer(due: number, then: () => void = () => {}): void {
    this.recorder.lag.push(performance.now() - due);
    const pending: Pending = {
      due,
      fresh: false,
      onDone: (status, retryAfter) => {
        this.recorder.done(status, retryAfter, performance.now() - due, due, pending.fresh);
        then();
      },
      onLost: () => {
        // Cut by the sender at the end: unanswered in time; cut by the server: a socket error.
        if (this.#closing) this.recorder.timeouts += 1;
        else this.recorder.socketErrors += 1;
        then();
      },
    };
    let connection = this.#idle.pop();
    while (connection && !connection.reusable) {
      connection.socket.destroy();
      connection = this.#idle.pop();
    }
    if (!connection && this.#all.size < MAX_SOCKETS) {
      connection = this.#open();
      pending.fresh = true;
    }
    if (connection) connection.send(this.#request, pending);
    else this.#waiting.push(pending);
  }

  /** Requests still waiting for a connection or an answer. */
  get outstanding(): number {
    return this.#waiting.length + [...this.#all].filter((c) => c.busy).length;
  }

  close(): void {
    this.#closing = true;
    for (const connection of this.#all) connection.socket.destroy();
    // Whatever was never answered timed out.
    this.recorder.timeouts += this.#waiting.length;
    this.#waiting.length = 0;
  }

  #open(): Connection {
    const connection = new Connection(
      this.#host,
      this.#port,
      (idle) => {
        const next = this.#waiting.shift();
        if (next) idle.send(this.#request, next);
        else this.#idle.push(idle);
      },
      (closed, lost) => {
        this.#all.delete(closed);
        lost?.onLost();
      },
    );
    this.#all.add(connection);
    this.peak = Math.max(this.peak, this.#all.size);
    return connection;
  }
}

/** Closed loop: `connections` senders, each sending its next request as soon as the last is answered. */
export async function closedLoop(spec: OverloadSpec, connections: number, seconds: number): Promise<Outcomes> {
  const sender = new Sender(spec);
  const started = performance.now();
  const ends = started + seconds * 1000;
  let offered = 0;
  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve) => {
          const next = () => {
            if (performance.now() >= ends) return resolve();
            offered += 1;
            sender.offer(performance.now(), next);
          };
          next();
        }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  sender.close();
  return sender.recorder.outcomes(elapsed, offered, sender.peak);
}

/** Open loop: `rate` requests a second for `seconds`, on schedule; then up to TIMEOUT_MS for the last answers. */
export async function openLoop(spec: OverloadSpec, rate: number, seconds: number): Promise<Outcomes> {
  const sender = new Sender(spec);
  const started = performance.now();
  const total = Math.round(rate * seconds);
  const overflowsBefore = listenOverflows();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000));
      while (sent < due) {
        sender.offer(started + (sent * 1000) / rate);
        sent += 1;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const deadline = performance.now() + TIMEOUT_MS;
  while (sender.outstanding > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  sender.close();
  if (TRACE) {
    const rows = sender.recorder.trace.map(([due, ms, status, fresh]) => `${rate},${Math.round(due - started)},${ms.toFixed(1)},${status},${fresh ? 1 : 0}`);
    appendFileSync(TRACE, `${rows.join('\n')}\n`);
  }
  const overflowsAfter = listenOverflows();
  const outcomes = sender.recorder.outcomes(seconds, total, sender.peak);
  if (overflowsBefore !== undefined && overflowsAfter !== undefined) outcomes.listenOverflows = overflowsAfter - overflowsBefore;
  return outcomes;
}

/** The raw bytes of a POST with a JSON body. */
export function postRequest(url: string, path: string, headers: Record<string, string>, body: string): Buffer {
  const { host } = new URL(url);
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${Buffer.byteLength(body)}`];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

export interface OverloadFigures {
  /** The closed-loop capacity of the admission-on process and of the admission-off one. */
  capacityOn: Outcomes;
  capacityOff: Outcomes;
  /**
   * The admission-on process's closed loop again, after its overload: how far the machine's
   * speed moved meanwhile. Reported beside the verdict, which is against C measured before.
   */
  capacityOnAfter?: Outcomes;
  offeredRate: number;
  on: Outcomes;
  off: Outcomes;
}

/** C: the larger closed-loop capacity of the two processes (admission control is charged for any it costs). */
export function capacityOf(figures: Pick<OverloadFigures, 'capacityOn' | 'capacityOff'>): Outcomes {
  const { capacityOn, capacityOff } = figures;
  return capacityOn.goodputPerSec >= capacityOff.goodputPerSec ? capacityOn : capacityOff;
}

/** Targets of R52 for the run with admission control on. */
export function overloadTargets(figures: OverloadFigures): { target: string; value: string; met: boolean }[] {
  const { capacityOn, on } = figures;
  const capacity = capacityOf(figures);
  const refusals = on.answered - (on.statuses['201'] ?? 0);
  const share = (c: Outcomes) => round(on.goodputPerSec / c.goodputPerSec, 3);
  return [
    {
      target: 'goodput >= 0.9 C',
      value:
        `${on.goodputPerSec}/s vs C ${capacity.goodputPerSec}/s: ${share(capacity)} C (${share(capacityOn)} of the admission-on process's own ${capacityOn.goodputPerSec}/s` +
        (figures.capacityOnAfter ? `; ${share(figures.capacityOnAfter)} of its ${figures.capacityOnAfter.goodputPerSec}/s measured again after the overload)` : ')'),
      met: on.goodputPerSec >= 0.9 * capacity.goodputPerSec,
    },
    { target: 'p99 of the 201s <= 1 s', value: `${on.p99Of201Ms} ms`, met: on.p99Of201Ms <= 1000 },
    { target: 'every refusal is a 503 with Retry-After', value: `${on.refusals503WithRetryAfter} of ${refusals}`, met: on.refusals503WithRetryAfter === refusals },
    { target: 'p99 of the refusals <= 50 ms', value: `${on.p99OfRefusalsMs} ms`, met: refusals === 0 || on.p99OfRefusalsMs <= 50 },
    { target: 'no timeouts', value: `${on.timeouts} timeouts, ${on.socketErrors} socket errors`, met: on.timeouts === 0 && on.socketErrors === 0 },
  ];
}

export function renderOverload(figures: OverloadFigures): string {
  const row = (label: string, o: Outcomes) =>
    `${label.padEnd(34)} ${String(o.offered).padStart(7)} ${String(o.goodputPerSec).padStart(9)} ${String(o.p50Of201Ms).padStart(8)} ${String(o.p99Of201Ms).padStart(8)} ` +
    `${String(o.p99OfRefusalsMs).padStart(9)} ${`${o.refusals503WithRetryAfter}/${o.answered - (o.statuses['201'] ?? 0)}`.padStart(12)} ${String(o.timeouts).padStart(8)} ${String(o.peakConnections).padStart(6)} ${String(o.senderLagP99Ms).padStart(7)}  ${JSON.stringify(o.statuses)}`;
  const cpuRows: [string, Outcomes][] = [
    ['capacity C, admission on', figures.capacityOn],
    ['capacity C, admission off', figures.capacityOff],
    ...(figures.capacityOnAfter ? [['C again after, adm. on', figures.capacityOnAfter] as [string, Outcomes]] : []),
    ['2C, admission on', figures.on],
    ['2C, admission off', figures.off],
  ];
  return [
    `${'run'.padEnd(34)} ${'offered'.padStart(7)} ${'201/s'.padStart(9)} ${'201 p50'.padStart(8)} ${'201 p99'.padStart(8)} ${'refus.p99'.padStart(9)} ${'503+RA/ref.'.padStart(12)} ${'timeouts'.padStart(8)} ${'conns'.padStart(6)} ${'lag p99'.padStart(7)}  statuses`,
    row('capacity C (closed loop, 50 conns)', capacityOf(figures)),
    row(`2C = ${figures.offeredRate}/s open loop, admission on`, figures.on),
    row(`2C = ${figures.offeredRate}/s open loop, admission off`, figures.off),
    `(admission on: p99 of the refusals on connections that had carried an answer before, without a new connection's handshake and accept-queue wait: ${figures.on.p99OfRefusalsEstablishedMs} ms)`,
    'processor time, % of one core (service (of which kernel) / PostgreSQL / generator / machine idle), and the service\'s ms per 201:',
    ...cpuRows.map(([label, o]) => `  ${label.padEnd(26)} ${cpuLine(o.cpu)}`),
    '',
    ...overloadTargets(figures).map((t) => `${t.met ? 'met    ' : 'NOT MET'}  ${t.target}: ${t.value}`),
  ].join('\n');
}

function cpuLine(cpu: CpuShare | undefined): string {
  if (cpu === undefined) return 'n/a (no /proc)';
  const loop = cpu.loopRunPct === undefined ? '' : `; event loop on a processor ${cpu.loopRunPct}%, waiting for one ${cpu.loopWaitPct}%`;
  return `${cpu.servicePct} (${cpu.serviceSystemPct}) / ${cpu.postgresPct} / ${cpu.generatorPct} / ${cpu.idlePct}; ${cpu.serviceMsPer201} ms per 201${loop}`;
}

/** Samples of the service's own view while a run goes on (its /metrics, every 500 ms). */
export interface SignalSamples {
  limit: number[];
  running: number[];
  queued: number[];
  loopLagP99Ms: number[];
  databaseWaiting: number[];
}

export function sampleSignals(metricsUrl: string): { stop(): SignalSamples } {
  const samples: SignalSamples = { limit: [], running: [], queued: [], loopLagP99Ms: [], databaseWaiting: [] };
  const value = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  const timer = setInterval(() => {
    fetch(metricsUrl, { signal: AbortSignal.timeout(400) })
      .then((res) => res.text())
      .then((text) => {
        samples.limit.push(value(text, /^ers_admission_requests\{state="limit"\} (\S+)$/m));
        samples.running.push(value(text, /^ers_admission_requests\{state="running"\} (\S+)$/m));
        samples.queued.push(value(text, /^ers_admission_requests\{state="queued"\} (\S+)$/m));
        samples.loopLagP99Ms.push(round(1000 * value(text, /^nodejs_eventloop_lag_p99_seconds (\S+)$/m)));
        samples.databaseWaiting.push(value(text, /^ers_db_pool_connections\{state="waiting"\} (\S+)$/m));
      })
      .catch(() => {});
  }, 500);
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}

/** min / median / max of a series. */
export function spread(values: number[]): string {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return 'n/a';
  return `${sorted[0]} / ${sorted[Math.floor(sorted.length / 2)]} / ${sorted.at(-1)}`;
}
