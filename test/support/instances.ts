// Several real service processes (`node src/main.ts`) on one database, the way an operator runs
// them behind a load balancer (R34): started in the same tick, each on its own loopback port.
import { startServerProcess, type ServerProcess } from './server-process.ts';

export interface Instance {
  readonly process: ServerProcess;
  readonly url: string;
}

/** How long one start may take on a busy two-core machine (migrations included). */
const START_WAIT_MS = 60_000;

/**
 * Starts `count` processes at the same moment with the same environment (PORT=0 unless `env`
 * says otherwise, LOG_LEVEL info for the `listening` line) and waits until every one listens.
 * Rejects with the stderr of the first that failed; the others are then killed.
 */
export async function startInstances(count: number, env: Record<string, string>): Promise<Instance[]> {
  const processes = Array.from({ length: count }, () => startServerProcess({ PORT: '0', LOG_LEVEL: 'info', ...env }));
  try {
    const lines = await Promise.all(processes.map((process) => process.waitForLog('listening', START_WAIT_MS)));
    return processes.map((process, i) => ({ process, url: String(lines[i]?.url) }));
  } catch (error) {
    for (const process of processes) process.kill();
    // The service logs its start failure on stdout (pino): say which line it was.
    const fatal = processes.flatMap(({ stdoutLines }) => stdoutLines.filter((line) => line.includes('"start failed"')));
    throw new Error(`${(error as Error).message}\n${fatal.join('\n')}`, { cause: error });
  }
}

/** SIGTERM to every instance; resolves with their exit codes (R35: 0). */
export async function stopInstances(instances: readonly Instance[]): Promise<(number | null)[]> {
  for (const { process } of instances) process.child.kill('SIGTERM');
  const exits = await Promise.all(instances.map(({ process }) => process.exited));
  return exits.map((exit) => exit.code);
}

/** For after hooks: kills whatever still runs. */
export function killInstances(instances: readonly Instance[]): void {
  for (const { process } of instances) process.kill();
}
