// CI smoke run of the embedded mode (R3): `npm start` on a fresh DATA_DIR creates
// the demo customer and key file, both endpoints answer, and after a restart the data is
// still there and no second demo customer appears.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const dataDir = mkdtempSync(join(tmpdir(), 'ers-smoke-'));
const { DATABASE_URL: _ignored, ...inherited } = process.env;
const env = { ...inherited, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };

function fail(message: string): never {
  console.error(`embedded smoke: ${message}`);
  process.exit(1);
}

async function start(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['src/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let buffer = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no "listening" line within 60 s')), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split('\n')) {
        if (line.includes('"listening"')) {
          clearTimeout(timer);
          resolve(JSON.parse(line).url as string);
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  if (code !== 0) fail(`SIGTERM exit code ${code}, expected 0`);
}

async function usage(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/v1/usage/current`, { headers: { 'x-api-key': key } });
  if (res.status !== 200) fail(`GET /v1/usage/current answered ${res.status}`);
  const body = (await res.json()) as { usage: { used: number }[] };
  return body.usage[0]?.used ?? fail('no usage item');
}

try {
  const first = await start();
  const keyFile = join(dataDir, 'demo-api-key');
  if ((statSync(keyFile).mode & 0o777) !== 0o600) fail('demo key file is not mode 0600');
  const key = readFileSync(keyFile, 'utf8').trim();
  if ((await usage(first.url, key)) !== 0) fail('a fresh demo customer should have used 0');
  const created = await fetch(`${first.url}/v1/evidence/reports`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ context: 'property_maintenance', evidence: { text: 'Water drips from the ceiling.' } }),
  });
  if (created.status !== 201) fail(`POST /v1/evidence/reports answered ${created.status}`);
  if ((await usage(first.url, key)) !== 1) fail('used should be 1 after one report');
  await stop(first.child);

  const second = await start();
  if (readFileSync(keyFile, 'utf8').trim() !== key) fail('the demo key changed across a restart');
  if ((await usage(second.url, key)) !== 1) fail('the usage did not survive the restart');
  await stop(second.child);
  console.log('embedded smoke: start, both endpoints, SIGTERM, restart, data kept: ok');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
