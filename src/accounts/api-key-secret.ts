// API key secrets (ruling R26): `ers_live_` + 40 random base62 characters, shown once.
// Only the hex SHA-256 and a short display prefix are stored.
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'ers_live_';
const RANDOM_CHARS = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 62 * 4 = 248: bytes from 248 up are dropped, so every character is equally likely
// (byte % 62 alone would favour the first 8 characters).
const ACCEPT_BELOW = 248;
/** Enough to tell keys apart in a list (`ers_live_AbC`), far too little to guess one. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 3;

export interface NewApiKeySecret {
  key: string;
  keyHash: string;
  prefix: string;
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < ACCEPT_BELOW && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Hex SHA-256 of the full key: what authentication looks up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKeySecret(): NewApiKeySecret {
  const key = API_KEY_PREFIX + randomBase62(RANDOM_CHARS);
  return { key, keyHash: hashApiKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}
