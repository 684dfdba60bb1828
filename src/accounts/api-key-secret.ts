// API key secrets (ruling R26): `ers_live_` + 40 random base62 characters, shown once; a
// test-mode key (R53) is `ers_test_` + 40. Only the hex SHA-256 and a short display prefix are
// stored.
import { createHash, randomBytes } from 'node:crypto';
import type { Mode } from './mode.ts';

const API_KEY_PREFIX = 'ers_live_';
/** R53: the prefix says the key's mode, so a key pasted into the wrong place is recognised. */
const API_KEY_PREFIXES: Readonly<Record<Mode, string>> = { live: API_KEY_PREFIX, test: 'ers_test_' };
const RANDOM_CHARS = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 62 * 4 = 248: bytes from 248 up are dropped, so every character is equally likely
// (byte % 62 alone would favour the first 8 characters).
const ACCEPT_BELOW = 248;
/** Enough to tell keys apart in a list (`ers_live_AbC`), far too little to guess one. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 3;

interface NewApiKeySecret {
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

export function generateApiKeySecret(mode: Mode = 'live'): NewApiKeySecret {
  const key = API_KEY_PREFIXES[mode] + randomBase62(RANDOM_CHARS);
  return { key, keyHash: hashApiKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * R51: whether `key` can be a key at all: a known prefix (`ers_live_`, and `ers_test_` of R53)
 * and exactly 40 base62 characters. Anything else is refused without a database round trip.
 */
const KEY_SHAPE = /^ers_(?:live|test)_[0-9A-Za-z]{40}$/;
export function couldBeApiKey(key: string): boolean {
  return key.length === API_KEY_PREFIX.length + RANDOM_CHARS && KEY_SHAPE.test(key);
}

/**
 * R26: `text` with anything shaped like an API key (its `ers_live_` or `ers_test_` prefix and what
 * follows, up to a `/`, whitespace or a quote) replaced by the prefix and `[redacted]`: for what a
 * log line or a message repeats of its input (a key pasted into a URL path, or where a key id
 * belongs).
 */
export function redactApiKeys(text: string): string {
  return text.replaceAll(/(ers_(?:live|test)_)[^\s/"'`]*/gi, '$1[redacted]');
}
