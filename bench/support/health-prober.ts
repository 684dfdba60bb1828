// `GET /healthz` on a connection of its own while a scenario loads the service (R38): if
// decoding ran on the event loop, these answers would wait behind it. One request at a time,
// every `intervalMs`, bounded by the scenario's own length.
import { Agent, get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from './round.ts';

export interface ProbeFigures {
  readonly probes: number;
  readonly failures: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

function probe(url: string, agent: Agent): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(`${url}/healthz`, { agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Probes until `stop()`; then returns the figures. */
export function startHealthProber(url: string, intervalMs = 50): { stop(): Promise<ProbeFigures> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        latencies.push(await probe(url, agent));
      } catch {
        failures++;
      }
      await sleep(intervalMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (p: number): number => round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN);
      return { probes: latencies.length, failures, latencyMs: { p50: at(50), p99: at(99), max: at(100) } };
    },
  };
}
