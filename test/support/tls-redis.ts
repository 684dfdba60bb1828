// A redis-server started by the test for R48: TLS only (`port 0`, `tls-port`), a server
// certificate signed by the test's CA, no client certificates asked for, and ACL users only:
// the default user is off, so every command needs the user and password of the URL, and the
// service's user may touch only its own keys with the commands the store uses.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './haproxy.ts';
import { startRedisServer, type PrivateRedis } from './private-redis.ts';
import type { CertificateAuthority, ServerCertificate } from './tls-certificates.ts';

export type TlsRedis = PrivateRedis;

export async function startTlsRedis(dir: string, certificate: ServerCertificate, ca: CertificateAuthority, user: string, password: string): Promise<TlsRedis> {
  const port = await freePort();
  const config = join(dir, 'redis.conf');
  await writeFile(
    config,
    [
      'bind 127.0.0.1 -::1',
      'port 0',
      `tls-port ${port}`,
      `tls-cert-file ${certificate.certFile}`,
      `tls-key-file ${certificate.keyFile}`,
      `tls-ca-cert-file ${ca.certFile}`,
      'tls-auth-clients no',
      'save ""',
      'appendonly no',
      `dir ${dir}`,
      'user default off',
      // The narrow ACL docs/operations.md recommends: the service's keys and the commands it uses
      // (+info: the client's ready check).
      `user ${user} on >${password} ~evidence_report:* +@read +@write +@scripting +@transaction +@connection +info`,
      '',
    ].join('\n'),
  );
  return startRedisServer([config], port, 'redis-server with TLS');
}
