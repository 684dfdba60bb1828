// What a refusal costs the process that writes it (R52), against the least node:http can do:
// `node bench/refusal-floor.ts [rate]`. Two servers (bench/refusal-server.ts), the service's
// edge refusing every POST and a bare node:http 503, are each offered text POSTs open loop at
// `rate` a second (1,500 by default: the refusals of the overload scenario at 2C) for 10 s,
// three rounds alternated after a warm-up, with the sender of the overload scenario
// (support/overload.ts). Reported: each server's processor time per refusal, from /proc.
//
// Why it matters: under overload every 201 also pays for the refusals written meanwhile (about
// 1.3 of them at 2C), on the same event loop; bench/README.md, "Overload (R52)", 9.
import { cpuSeconds } from './support/cpu.ts';
import { openLoop, postRequest } from './support/overload.ts';
import { freePort, startNodeChild, REPO_ROOT, type NodeChild } from './support/processes.ts';
import { REPORTS_PATH, TEXT_REQUEST } from './support/workload.ts';

const RATE = Number(process.argv[2] ?? 1_500);
const SECONDS = 10;
const ROUNDS = 3;
const WARM_UP_S = 3;
const KEY = `ers_live_${'a'.repeat(40)}`;

async function start(mode: 'edge' | 'plain'): Promise<NodeChild> {
  return startNodeChild({ name: mode, script: `${REPO_ROOT}bench/refusal-server.ts`, env: { MODE: mode }, port: await freePort(), readyPath: '/healthz' });
}

/** A server with the bytes of its text POST. */
function target(server: NodeChild) {
  const request = postRequest(server.url, REPORTS_PATH, { 'content-type': 'application/json', 'x-api-key': KEY }, JSON.stringify(TEXT_REQUEST));
  return { server, spec: { url: server.url, request } };
}

const targets = [target(await start('edge')), target(await start('plain'))];
try {
  for (const { spec } of targets) await openLoop(spec, RATE, WARM_UP_S);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const { server, spec } of targets) {
      const before = cpuSeconds(server.pid);
      const outcomes = await openLoop(spec, RATE, SECONDS);
      const seconds = cpuSeconds(server.pid) - before;
      const refused = outcomes.statuses['503'] ?? 0;
      if (refused !== outcomes.offered) throw new Error(`${server.name}: ${JSON.stringify(outcomes.statuses)} of ${outcomes.offered}`);
      const perRefusal = ((seconds / refused) * 1e6).toFixed(1);
      console.log(`round ${round}, ${server.name.padEnd(5)}: ${refused} refusals at ${RATE}/s, ${perRefusal} µs of processor each, p99 ${outcomes.p99OfRefusalsMs} ms`);
    }
  }
} finally {
  await Promise.all(targets.map(({ server }) => server.stop()));
}
