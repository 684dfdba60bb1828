// Processor time from Linux /proc: a process's (user + system, from /proc/<pid>/stat) and the
// machine's idle time (/proc/stat), so a scenario can report the service's CPU per request: on
// a machine shared with other work, throughput moves with the neighbours' load, CPU per request
// much less.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface ProcessCpu {
  /** The command name (/proc's comm). */
  name: string;
  /** user + system, in seconds. */
  seconds: number;
  /** The system (kernel) part of it. */
  systemSeconds: number;
}

/** A process's processor time so far and its name; undefined once it is gone. */
export function processCpu(pid: number | string): ProcessCpu | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces, inside parentheses): utime is the
  // 14th field of the line, stime the 15th.
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return { name, seconds: (user + system) / TICKS_PER_SECOND, systemSeconds: system / TICKS_PER_SECOND };
}

/** A live process's processor time so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const cpu = processCpu(pid);
  if (cpu === undefined) throw new Error(`process ${pid} is not running`);
  return cpu.seconds;
}

/** The machine's idle time (idle + iowait over all cores) in seconds. */
export function machineIdleSeconds(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
  return (Number(cpu[4]) + Number(cpu[5])) / TICKS_PER_SECOND;
}

/**
 * A process's main thread's time on a processor and its time runnable but waiting for one, in
 * seconds (/proc/<pid>/task/<pid>/schedstat, kept by the scheduler in nanoseconds); undefined
 * when the kernel does not keep it or the process is gone. The main thread of a Node process is
 * its event loop: its wait is how much the loop was held back by the machine's other work.
 */
export function mainThreadSchedule(pid: number): { runSeconds: number; waitSeconds: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return undefined;
    return { runSeconds: (run as number) / 1e9, waitSeconds: (wait as number) / 1e9 };
  } catch {
    return undefined;
  }
}
