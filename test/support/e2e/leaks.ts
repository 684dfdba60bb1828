// What an error body may not say (spec 4.1 remote image rule 5, spec 2.4, R23, R24): nothing
// about addresses, ports, names, DNS, sockets, redirects, libraries or the provider.
import { expect } from 'chai';
import type { TestResponse } from '../http-client.ts';

/** Words of network and library internals that no error body may carry. */
export const INTERNAL_WORDS = [
  '127.0.0.1', '::1', 'localhost', '169.254', '0.0.0.0', 'ECONN', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH',
  'ENETUNREACH', 'socket', 'DNS', 'getaddrinfo', 'lookup', 'redirect', 'Location', 'undici', 'node-fetch', 'fetch failed',
  'AbortError', 'aborted', 'timeout', 'timed out', 'stack', ' at ', 'Error:', 'http://', 'https://',
  'gemini', 'google', 'genai', 'model', 'token', 'prompt', 'candidate', 'safety', 'blockReason', 'finishReason',
];

/**
 * Asserts that the response names none of `secrets` nor any internal word, in its body or its
 * headers. The request id (a random UUID that could contain a port's digits by chance) is
 * left out of the search: it is a correlation id, not a detail.
 */
export function expectNoInternalDetail(response: TestResponse, secrets: readonly (string | number)[] = []): void {
  const body = response.body as { error?: Record<string, unknown> } | string;
  const withoutRequestId = typeof body === 'object' && body !== null && body.error ? { ...body, error: { ...body.error, requestId: '' } } : body;
  const headers = Object.entries(response.headers)
    .filter(([name]) => name !== 'x-request-id' && name !== 'date')
    .map(([name, value]) => `${name}: ${String(value)}`);
  const haystack = `${typeof withoutRequestId === 'string' ? withoutRequestId : JSON.stringify(withoutRequestId)}\n${headers.join('\n')}`.toLowerCase();
  for (const word of [...INTERNAL_WORDS, ...secrets.map(String)]) {
    if (word.length < 2) continue;
    expect(haystack, `the response names ${JSON.stringify(word)}`).not.to.include(word.toLowerCase());
  }
}

/** The error envelope's parts, for exact assertions. */
export function errorOf(response: TestResponse): { code: string; message: string; requestId: string; details?: Record<string, unknown> } {
  const body = response.body as { error?: { code: string; message: string; requestId: string; details?: Record<string, unknown> } };
  expect(body.error, `an error envelope, got ${response.status} ${response.text}`).to.be.an('object');
  return body.error!;
}
