// Starts Stoplight Prism 5 (`prism proxy`) as a child process in front of a running service,
// on a free loopback port, and keeps everything it logs so a test can show it. Prism reads the
// contract from the local file (only internal $refs) and talks to nothing but the upstream on
// loopback: no network, and Prism 5 has no telemetry. The child is started and stopped by its
// own pid; a start that does not reach "Prism is listening" in time fails with Prism's output.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const prismCli = fileURLToPath(new URL('../../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));
const CONTRACT = 'contract/openapi.yaml';
const START_TIMEOUT_MS = 60_000;

export interface PrismOptions {
  /** `--errors`: a request or response violation makes Prism answer with a problem document. */
  errors: boolean;
}

export interface PrismProxy {
  readonly url: string;
  /** Everything Prism wrote to stdout and stderr, colour codes removed. */
  output(): string;
  stop(): Promise<void>;
}

/** A free loopback port (closed again before Prism binds it; a lost race fails the start loudly). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function startPrism(upstream: string, options: PrismOptions): Promise<PrismProxy> {
  const port = await freePort();
  const args = [prismCli, 'proxy', CONTRACT, upstream, '--host', '127.0.0.1', '--port', String(port), '--errors', String(options.errors)];
  // No proxy variables: Prism must reach its upstream on loopback directly and nothing else.
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += stripAnsi(chunk.toString('utf8'))));
  child.stderr?.on('data', (chunk: Buffer) => (output += stripAnsi(chunk.toString('utf8'))));
  const url = `http://127.0.0.1:${port}`;

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      const check = () => {
        if (output.includes(`Prism is listening on ${url}`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      child.stderr?.on('data', check);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Prism exited during start (code ${code}, signal ${signal})`));
      });
    });
  } catch (error) {
    await stopChild(child);
    throw new Error(`cannot start Prism (${args.slice(1).join(' ')}): ${(error as Error).message}\n--- Prism output ---\n${output}`, {
      cause: error,
    });
  }
  child.removeAllListeners('exit');
  return { url, output: () => output, stop: () => stopChild(child) };
}

/** One violation as Prism reports it in `sl-violations` (location starts with request or response). */
export interface PrismViolation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

export interface PrismVerdict {
  /** Violations of the request we sent (expected only for deliberately invalid requests). */
  request: PrismViolation[];
  /** Violations of the service's response: must always be empty. */
  response: PrismViolation[];
  /** Set when Prism answered itself (application/problem+json) instead of passing the service's answer on. */
  prismAnswer: string | undefined;
}

/**
 * Reads Prism's verdict from a response that passed through it: the `sl-violations` header
 * (a JSON array; Prism truncates it past about 8 KB, and a truncated list counts as a response
 * violation because it can no longer be told apart) and a problem document Prism generated.
 */
export function prismVerdict(headers: Record<string, string | string[] | undefined>, text: string): PrismVerdict {
  const verdict: PrismVerdict = { request: [], response: [], prismAnswer: undefined };
  const raw = headers['sl-violations'];
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  if (value !== undefined) {
    let list: PrismViolation[];
    try {
      list = JSON.parse(value) as PrismViolation[];
    } catch {
      list = [{ location: ['response'], severity: 'Error', message: `unreadable sl-violations header: ${value.slice(0, 500)}` }];
    }
    for (const violation of list) (violation.location[0] === 'request' ? verdict.request : verdict.response).push(violation);
  }
  const contentType = headers['content-type'];
  if (typeof contentType === 'string' && contentType.startsWith('application/problem+json')) verdict.prismAnswer = text;
  return verdict;
}

export function describeViolations(list: PrismViolation[]): string {
  return list.map((v) => `${v.severity} ${v.location.join('.')}: ${v.message}`).join('\n');
}
