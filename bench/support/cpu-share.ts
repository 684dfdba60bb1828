// Where the machine's processor time went during a measured window (Linux /proc): the
// service's process, PostgreSQL's processes, the load generator (this process) and what was
// left idle, each in % of one core, and the service's processor time per 201.
//
// Why: on a machine of two cores the service, PostgreSQL and the load generator share the
// processors, and its speed drifts by 10% or more from one minute to the next (bench/README.md,
// "Overload (R52)"). A goodput ratio that misses can then come from the service getting less
// processor time (the generator's own share doubles at 2C, PostgreSQL answers later) or from
// each 201 costing it more (refusals, garbage collection): these figures tell the two apart.
import { readdirSync } from 'node:fs';
import { machineIdleSeconds, processCpu, mainThreadSchedule } from './cpu.ts';
import { round } from './round.ts';

export interface CpuShare {
  /** % of one core, over the window. */
  servicePct: number;
  /** The part of servicePct spent in the kernel (system calls, and loopback TCP sent from it). */
  serviceSystemPct: number;
  postgresPct: number;
  generatorPct: number;
  /** The machine's idle time (all cores), in % of one core. */
  idlePct: number;
  /** The service's processor time (user + system) per 201 answered in the window, in ms. */
  serviceMsPer201: number;
  /**
   * The service's event loop (its main thread) on a processor, and runnable but waiting for one
   * (held back by PostgreSQL's backends, the load generator and its own helper threads on the
   * same two processors), in % of the window; undefined without schedstat.
   */
  loopRunPct?: number;
  loopWaitPct?: number;
}

interface Reading {
  at: number;
  service: number;
  serviceSystem: number;
  /** Per PostgreSQL process alive at the start; one that ended meanwhile is missing from the last reading, and left out. */
  postgres: Map<string, number>;
  generator: number;
  idle: number;
  loop: { runSeconds: number; waitSeconds: number } | undefined;
}

/**
 * Processor seconds of each PostgreSQL process among `pids` (the server runs here, as the bench
 * requires); a pid that ended, or now names another program, is left out.
 */
function postgresTimes(pids: Iterable<string>): Map<string, number> {
  const times = new Map<string, number>();
  for (const pid of pids) {
    const stat = processCpu(pid);
    if (stat?.name === 'postgres') times.set(pid, stat.seconds);
  }
  return times;
}

/**
 * Starts measuring; stop(created) gives the shares over the window, with created the 201s
 * answered in it. PostgreSQL's processes are those alive at the start (the service's pool keeps
 * its connections through a window); undefined where /proc cannot be read.
 */
export function measureCpu(servicePid: number): { stop(created: number): CpuShare | undefined } {
  let everyPid: string[];
  try {
    everyPid = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return { stop: () => undefined };
  }
  const read = (postgresPids: Iterable<string>): Reading | undefined => {
    const service = processCpu(servicePid);
    if (service === undefined) return undefined;
    const own = process.cpuUsage();
    return {
      at: performance.now() / 1000,
      service: service.seconds,
      serviceSystem: service.systemSeconds,
      postgres: postgresTimes(postgresPids),
      generator: (own.user + own.system) / 1e6,
      idle: machineIdleSeconds(),
      loop: mainThreadSchedule(servicePid),
    };
  };
  const first = read(everyPid);
  return {
    stop(created: number) {
      if (first === undefined) return undefined;
      const last = read(first.postgres.keys());
      if (last === undefined) return undefined;
      const seconds = last.at - first.at;
      const pct = (busy: number) => round((100 * busy) / seconds, 1);
      let postgres = 0;
      for (const [pid, end] of last.postgres) postgres += end - (first.postgres.get(pid) ?? end);
      return {
        servicePct: pct(last.service - first.service),
        serviceSystemPct: pct(last.serviceSystem - first.serviceSystem),
        postgresPct: pct(postgres),
        generatorPct: pct(last.generator - first.generator),
        idlePct: pct(last.idle - first.idle),
        serviceMsPer201: created === 0 ? Number.NaN : round((1000 * (last.service - first.service)) / created, 3),
        ...(first.loop && last.loop
          ? { loopRunPct: pct(last.loop.runSeconds - first.loop.runSeconds), loopWaitPct: pct(last.loop.waitSeconds - first.loop.waitSeconds) }
          : {}),
      };
    },
  };
}
