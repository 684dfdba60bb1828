// CPU time a process has used so far (user + system, from /proc/<pid>/stat), so a scenario can
// report the service's CPU per request: on a machine shared with other work, throughput moves
// with the neighbours' load, CPU per request much less.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, inside parentheses): utime is the
  // 14th field of the line, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
