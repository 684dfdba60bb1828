// Asserts that a fetch failed with ImageFetchError of the ruled kind (R23), and that
// nothing in the error names the target: no address, host name or port.
import { expect } from 'chai';
import { ImageFetchError } from '../../../src/images/index.ts';
import type { ImageFetchErrorKind, ImageFetchReason } from '../../../src/images/index.ts';

export interface Expected {
  readonly kind: ImageFetchErrorKind | 'rejected_or_unavailable';
  readonly reason?: ImageFetchReason;
  readonly index?: number;
}

/** Host, address and port strings of a URL, the things an error must not carry. */
export function secretsOf(url: string): string[] {
  const secrets: string[] = [];
  try {
    const parsed = new URL(url);
    secrets.push(parsed.hostname, parsed.hostname.replace(/^\[|\]$/g, ''), parsed.host);
    if (parsed.port.length >= 2) secrets.push(`:${parsed.port}`, parsed.port);
  } catch {
    // An unparsable URL has no host to leak.
  }
  return secrets.filter((s) => s.length >= 2);
}

export function assertNoLeak(error: ImageFetchError, secrets: readonly string[]): void {
  const texts = [error.message, JSON.stringify(error), String(error), JSON.stringify(Object.entries(error))];
  for (const text of texts) {
    for (const secret of secrets) expect(text.toLowerCase(), 'error text names the target').not.to.include(secret.toLowerCase());
  }
  expect(error.message).to.match(/^One or more remote evidence images could not be (accepted|retrieved) safely\.$/);
  expect(Object.keys(error).sort()).to.deep.equal(['imageIndex', 'kind', 'name', 'reason']);
}

export async function expectFailure(promise: Promise<unknown>, expected: Expected, secrets: readonly string[] = []): Promise<ImageFetchError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'fetch should have failed').to.be.instanceOf(ImageFetchError);
  const error = caught as ImageFetchError;
  if (expected.kind === 'rejected_or_unavailable') expect(error.kind).to.be.oneOf(['rejected', 'unavailable']);
  else expect(error.kind, `kind (reason ${error.reason})`).to.equal(expected.kind);
  if (expected.reason !== undefined) expect(error.reason).to.equal(expected.reason);
  expect(error.imageIndex).to.equal(expected.index ?? 0);
  assertNoLeak(error, secrets);
  return error;
}
