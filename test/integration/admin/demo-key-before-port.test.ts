// operator-interface.md: on a fresh embedded database the demo key file exists before the port
// accepts its first connection, so a script that waits for /healthz can read it at once. Each
// fresh start is polled from the moment of spawn; the file must exist at the first answer.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerProcess } from '../../support/server-process.ts';

const FRESH_STARTS = 3;

/** A free loopback port, so the poller knows where to knock before the service says anything. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('demo key file before the first connection (operator-interface.md)', function () {
  this.timeout(60_000 * FRESH_STARTS);

  for (let start = 1; start <= FRESH_STARTS; start++) {
    it(`fresh start ${start}: the key file exists when /healthz first answers`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ers-demo-race-'));
      const dataDir = join(dir, 'data');
      const keyFile = join(dataDir, 'demo-api-key');
      const port = await freePort();
      const server = startServerProcess({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
      try {
        const deadline = Date.now() + 50_000;
        let attempts = 0;
        for (;;) {
          expect(Date.now(), `no answer from /healthz; stderr: ${server.stderr()}`).to.be.below(deadline);
          attempts++;
          const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (res) => res.status === 200,
            () => false,
          );
          if (ok) {
            // Checked synchronously at the first answer: nothing can be written in between.
            expect(existsSync(keyFile), 'key file at the first /healthz answer').to.equal(true);
            break;
          }
          await sleep(5);
        }
        // The poll really started before the port listened (else the test could not fail).
        expect(attempts).to.be.greaterThan(1);
        expect((await readFile(keyFile, 'utf8')).trim()).to.match(/^ers_live_[0-9A-Za-z]{32,}$/);
      } finally {
        server.kill();
        await server.exited;
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
