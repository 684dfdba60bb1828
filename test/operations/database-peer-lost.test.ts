// R33 and R36 on the server's side of a partition. When the network between the service and
// PostgreSQL drops everything, the service gives up within its bounds (database-partition.test.ts),
// but the server's backend of each session stays, idle and waiting for its client, for as long as
// the server's kernel takes to notice: by default two hours before the first keep-alive probe.
// Meanwhile it keeps its session-level locks (the expiry sweep's lock, so no instance sweeps) and
// a connection slot the reconnecting service needs. The service's sessions of their own ask the
// server to probe after 10 s of silence and give up after 25 s without an answer
// (src/db/bounded-pool.ts), so such a session ends within about 25 s of the cut.
//
// The partition is real: the server runs in a network namespace behind a veth link whose near
// end is taken down (test/support/linked-namespace.ts), so its kernel sees silence, never a
// reset. A plain node-postgres session cut at the same moment shows it: it is still there when
// the service's session has gone.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { createLinkedNamespace, type LinkedNamespace } from '../support/linked-namespace.ts';
import { testPassword } from '../support/secret-log-lines.ts';
import { createCertificateAuthority, issueServerCertificate } from '../support/tls-certificates.ts';
import { startTlsPostgres, type TlsPostgres } from '../support/tls-postgres.ts';

const DATABASE = 'peer_lost';
const USER = 'peer_lost_user';
/** Any advisory key: the test's session lock stands for the sweep's (R36), taken the same way. */
const LOCK_KEY = 7_302_113_099;
/** 25 s of silence (keep-alive probes from the 10th second, TCP_USER_TIMEOUT 25 s), with room for a busy machine. */
const GONE_WITHIN_MS = 45_000;

/** The socket under a pg client, to drop it without a word at the end (its peer is unreachable). */
const socketOf = (client: pg.ClientBase) => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream;

describe('a session whose client is cut off is ended by the server (R33, R36)', function () {
  this.timeout(150_000);
  let dir: string;
  let caFile: string;
  let link: LinkedNamespace;
  let server: TlsPostgres;
  let database: Database | undefined;
  let session: pg.PoolClient | undefined;
  let plain: pg.Client | undefined;
  const password = testPassword('peer-lost');

  before(async () => {
    link = await createLinkedNamespace();
    dir = await mkdtemp(join(tmpdir(), 'ers-peer-lost-'));
    const ca = await createCertificateAuthority(dir, 'peer-lost-ca');
    caFile = ca.certFile;
    const certificate = await issueServerCertificate(dir, 'pg-server', ca, { ip: [link.insideAddress] });
    // A directory of its own: the server's account must reach it (the one above is the test's alone).
    server = await startTlsPostgres(await mkdtemp(join(tmpdir(), 'ers-peer-lost-cluster-')), certificate, {
      netns: link.name,
      listenAddress: link.insideAddress,
      clientAddress: link.outsideAddress,
    });
    await server.createDatabase(DATABASE, USER, password);
  });

  after(async () => {
    // Up again first, so that the other connections' goodbyes arrive and closing does not wait on silence.
    await link?.heal();
    if (plain) socketOf(plain).destroy();
    // Given back broken, so the pool drops it and closing does not wait for it.
    session?.release(true);
    await database?.close();
    await server?.stop();
    await link?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const backends = async (pids: number[]) =>
    (await server.admin<{ pid: number }>('select pid from pg_stat_activity where pid = any($1::int[])', [pids])).map((row) => row.pid);
  const lockHolders = async () =>
    (await server.admin<{ pid: number }>(
      "select pid from pg_locks where locktype = 'advisory' and granted and ((classid::bigint << 32) | objid::bigint) = $1",
      [LOCK_KEY],
    )).map((row) => row.pid);

  it("the sweep's session lock and the connection are released within 45 s of the cut; a session without the service's settings stays", async () => {
    const url = new URL(`postgres://${USER}@${link.insideAddress}:${server.port}/${DATABASE}`);
    url.password = password;
    url.searchParams.set('sslmode', 'verify-full');
    url.searchParams.set('sslrootcert', caFile);
    // The session pool the sweep takes its lock on (DATABASE_DIRECT_URL, R47), as the server opens it.
    database = await openDatabase(loadConfig({ DATABASE_URL: url.toString(), DATABASE_DIRECT_URL: url.toString(), DATA_DIR: dir }));
    session = await (await database.sessionPool()).connect();
    // Its own side notices too (ETIMEDOUT from the client's keep-alive) while the test holds it.
    session.on('error', () => {});
    const held = await session.query<{ pid: number; locked: boolean }>('select pg_backend_pid() as pid, pg_try_advisory_lock($1) as locked', [LOCK_KEY]);
    const servicePid = held.rows[0]?.pid as number;
    expect(held.rows[0]?.locked).to.equal(true);

    plain = new pg.Client({
      host: link.insideAddress,
      port: server.port,
      user: USER,
      password,
      database: DATABASE,
      // node-postgres names no server for an IP address; the certificate is checked against it here.
      ssl: { ca: await readFile(caFile, 'utf8'), checkServerIdentity: (_name, certificate) => checkServerIdentity(link.insideAddress, certificate) },
    });
    plain.on('error', () => {});
    await plain.connect();
    const plainPid = (await plain.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid as number;
    expect(await backends([servicePid, plainPid])).to.have.members([servicePid, plainPid]);
    expect(await lockHolders()).to.deep.equal([servicePid]);

    await link.cut();
    const cutAt = Date.now();
    while (Date.now() - cutAt < GONE_WITHIN_MS && (await backends([servicePid])).length > 0) await sleep(500);
    const goneAfterMs = Date.now() - cutAt;

    expect(await backends([servicePid]), `the service's session ${goneAfterMs} ms after the cut`).to.deep.equal([]);
    expect(await lockHolders(), 'the advisory lock after the session ended').to.deep.equal([]);
    // The cut was silence, not a reset: the session without the settings is still waiting.
    expect(await backends([plainPid]), 'a session without keep-alive settings').to.deep.equal([plainPid]);
    // And the lock is there for another instance's sweep to take.
    const [taken] = await server.admin<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [LOCK_KEY]);
    expect(taken?.locked).to.equal(true);
  });
});
