// What a PEM file named by the operator (REDIS_TLS_CA; DATABASE_URL's sslrootcert, sslcert and
// sslkey, R48) must hold, checked at start. Node's TLS reads only PEM: given a DER file, or any
// other bytes, it trusts nothing extra and every connection then fails its certificate check at
// the first request, with an error that names no variable. Refused here, the start says which.
import { X509Certificate, createPrivateKey } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Why `bytes` are not PEM certificates (one, or a CA bundle), or undefined when they are. */
export function certificatesProblem(bytes: Buffer): string | undefined {
  const blocks = bytes.toString('latin1').match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) {
    // A DER certificate is an ASN.1 SEQUENCE: it begins with 0x30.
    return bytes[0] === 0x30
      ? 'holds a DER certificate, not PEM; convert it (openssl x509 -inform der -in FILE -out FILE.pem)'
      : 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  }
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      return 'holds a PEM certificate that cannot be parsed';
    }
  }
  return undefined;
}

/** Why `bytes` are not an unencrypted PEM private key, or undefined when they are. */
export function privateKeyProblem(bytes: Buffer): string | undefined {
  try {
    createPrivateKey({ key: bytes, format: 'pem' });
    return undefined;
  } catch {
    return 'holds no PEM private key that can be read';
  }
}
