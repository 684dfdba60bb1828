// Ruling R26: keys are `ers_live_` + random base62 (here 40 characters), only the SHA-256
// and a short display prefix are stored. The characters are drawn without modulo bias.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { generateApiKeySecret, hashApiKey, randomBase62 } from '../../../src/accounts/api-key-secret.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key secrets (R26)', () => {
  it('are ers_live_ followed by 40 base62 characters, with the hex SHA-256 and a 12-character prefix (R26)', () => {
    const { key, keyHash, prefix } = generateApiKeySecret();
    expect(key).to.match(/^ers_live_[0-9A-Za-z]{40}$/);
    expect(keyHash).to.equal(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).to.equal(keyHash);
    expect(prefix).to.equal(key.slice(0, 12));
  });

  it('never repeat (R26)', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKeySecret().key));
    expect(keys.size).to.equal(2000);
  });

  it('draw every base62 character equally often: no modulo bias (R26)', () => {
    // byte % 62 without rejection would make '0'..'7' 25% more frequent than the rest.
    const counts = new Map<string, number>();
    for (const char of randomBase62(400_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).to.equal([...BASE62].sort().join(''));
    const mean = (chars: string): number => [...chars].reduce((sum, c) => sum + (counts.get(c) ?? 0), 0) / chars.length;
    const ratio = mean(BASE62.slice(0, 8)) / mean(BASE62.slice(8));
    expect(ratio).to.be.within(0.97, 1.03);
  });
});
