// Mocha hooks for tests that run the real entry point as a process (server-process.ts) on the
// test database, with a HOME of its own so that no credentials file of the machine is found.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseUrl } from '../database.ts';
import { startServerProcess, type ServerProcess } from '../server-process.ts';

export interface ServiceProcess {
  /** The process's HOME (a fresh directory, removed after the block); read it inside tests. */
  readonly home: string;
  /** The process the current test started, if any (killed after each test). */
  readonly server: ServerProcess | undefined;
  /** Starts the service on 127.0.0.1 (any port, log level info) with `base()` and `env` on top; resolves with its URL once it listens. */
  start(env: Record<string, string>): Promise<string>;
}

export function useServiceProcess(homePrefix: string, base: () => Record<string, string> = () => ({})): ServiceProcess {
  let home: string | undefined;
  let server: ServerProcess | undefined;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), homePrefix));
  });
  afterEach(() => {
    server?.kill();
    server = undefined;
  });
  after(async () => {
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });
  const homeDir = (): string => {
    if (home === undefined) throw new Error('HOME is made in `before`: read it inside a test or hook');
    return home;
  };
  return {
    get home() {
      return homeDir();
    },
    get server() {
      return server;
    },
    start: async (env) => {
      server = startServerProcess({ DATABASE_URL: testDatabaseUrl(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', HOME: homeDir(), ...base(), ...env });
      return String((await server.waitForLog('listening', 45_000)).url);
    },
  };
}
