// An in-memory ApiKeyDirectory for unit tests: keys by their hash, with
// facts a test sets directly, and a switch that makes every read fail as an unreachable
// database would.
import { PersistenceFailure } from '../db/persistence-failure.ts';
import type { ApiKeyDirectory, CallerFacts } from './api-key-directory.ts';

export class FakeApiKeyDirectory implements ApiKeyDirectory {
  readonly #facts = new Map<string, CallerFacts>();
  readonly uses: { apiKeyId: string; at: Date }[] = [];
  /** Every read, as a database would count statements. */
  reads = 0;
  unavailable = false;

  set(keyHash: string, facts: CallerFacts): void {
    this.#facts.set(keyHash, facts);
  }

  async callerFacts(keyHash: string): Promise<CallerFacts | undefined> {
    this.reads += 1;
    if (this.unavailable) throw new PersistenceFailure('unavailable');
    return this.#facts.get(keyHash);
  }

  async recordUse(apiKeyId: string, at: Date): Promise<void> {
    if (this.unavailable) throw new PersistenceFailure('unavailable');
    this.uses.push({ apiKeyId, at });
  }
}
