// Certificates for the TLS tests (R48), made with the openssl command line: a private CA and a
// server certificate it signs, for the names a test chooses. Everything lives in a temporary
// directory the caller removes.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CertificateAuthority {
  /** PEM file of the CA's certificate (what sslrootcert / REDIS_TLS_CA name). */
  readonly certFile: string;
  readonly keyFile: string;
}

export interface ServerCertificate {
  readonly certFile: string;
  readonly keyFile: string;
}

async function openssl(args: string[]): Promise<void> {
  await run('openssl', args, { timeout: 30_000 });
}

/** A new CA (EC P-256, valid one day) in `dir`, its files named after `name`. */
export async function createCertificateAuthority(dir: string, name: string): Promise<CertificateAuthority> {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.pem`);
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
  await openssl(['req', '-x509', '-new', '-key', keyFile, '-sha256', '-days', '1', '-subj', `/CN=${name}`, '-out', certFile,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  return { certFile, keyFile };
}

/** A server certificate signed by `ca` for the DNS names and IP addresses given (subjectAltName). */
export async function issueServerCertificate(
  dir: string,
  name: string,
  ca: CertificateAuthority,
  altNames: { dns?: readonly string[]; ip?: readonly string[] },
): Promise<ServerCertificate> {
  const keyFile = join(dir, `${name}.key`);
  const csrFile = join(dir, `${name}.csr`);
  const certFile = join(dir, `${name}.pem`);
  const extFile = join(dir, `${name}.ext`);
  const san = [...(altNames.dns ?? []).map((d) => `DNS:${d}`), ...(altNames.ip ?? []).map((i) => `IP:${i}`)].join(',');
  await writeFile(extFile, `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
  await openssl(['req', '-new', '-key', keyFile, '-subj', `/CN=${altNames.dns?.[0] ?? name}`, '-out', csrFile]);
  await openssl(['x509', '-req', '-in', csrFile, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '1', '-sha256',
    '-extfile', extFile, '-out', certFile]);
  return { certFile, keyFile };
}

/** A client certificate signed by `ca` whose subject CN is `commonName` (PostgreSQL's `cert` authentication maps it to the role). */
export async function issueClientCertificate(dir: string, name: string, ca: CertificateAuthority, commonName: string): Promise<ServerCertificate> {
  const keyFile = join(dir, `${name}.key`);
  const csrFile = join(dir, `${name}.csr`);
  const certFile = join(dir, `${name}.pem`);
  const extFile = join(dir, `${name}.ext`);
  await writeFile(extFile, 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
  await openssl(['req', '-new', '-key', keyFile, '-subj', `/CN=${commonName}`, '-out', csrFile]);
  await openssl(['x509', '-req', '-in', csrFile, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '1', '-sha256',
    '-extfile', extFile, '-out', certFile]);
  return { certFile, keyFile };
}
