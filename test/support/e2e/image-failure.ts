// One image failure through the whole service, checked the way R14, R15 and R23 ask: the ruled
// code with details {imageIndex} only, nothing stored or counted (the idempotency claim
// released too), no generator call, and no internal detail in the response.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { countCustomerRows, createCustomerFixture } from '../database.ts';
import { client, type TestResponse } from '../http-client.ts';
import type { FakeGemini } from '../generation/fake-gemini-server.ts';
import type { ImageServer } from '../images/image-server.ts';
import { IMAGES } from './image-host.ts';
import { errorOf, expectNoInternalDetail } from './leaks.ts';
import { expectApiError } from '../expect-api-error.ts';

export interface ImageFailureCase {
  readonly serviceUrl: string;
  readonly host: ImageServer;
  readonly gemini: FakeGemini;
  /** The failing route's path on the host. */
  readonly path: string;
  /** Good images put before the failing one: the expected imageIndex. */
  readonly index: number;
  readonly code: Extract<ErrorCode, 'remote_evidence_image_rejected' | 'remote_evidence_image_unavailable'>;
  /** Further strings the response may not contain. */
  readonly secrets?: readonly (string | number)[];
  readonly withText?: boolean;
}

export async function expectImageFailure(c: ImageFailureCase): Promise<TestResponse> {
  const customer = await createCustomerFixture();
  const before = await countCustomerRows(customer.customerId);
  const geminiCalls = c.gemini.requests.length;
  const good = [IMAGES.png, IMAGES.jpeg, IMAGES.gif, IMAGES.webp].slice(0, c.index).map((i) => ({ url: c.host.url(i.path) }));
  const res = await client(c.serviceUrl, customer.apiKey).createReport(
    {
      context: 'damage_report',
      ...(c.withText === false ? {} : { language: 'en' }),
      evidence: { ...(c.withText === false ? {} : { text: 'Cracked window pane in the stairwell.' }), images: [...good, { url: c.host.url(c.path) }] },
    },
    { 'Idempotency-Key': randomUUID() },
  );
  expectApiError(res, c.code);
  expect(errorOf(res).details, 'details carry the index and nothing else (R23)').to.deep.equal({ imageIndex: c.index });
  expect(await countCustomerRows(customer.customerId), 'no report, no unit, no claimed key').to.deep.equal(before);
  expect(c.gemini.requests.length, 'the generator was called').to.equal(geminiCalls);
  expectNoInternalDetail(res, [c.host.port, `:${c.host.port}`, c.path, c.path.replace(/^\//, ''), ...(c.secrets ?? [])]);
  return res;
}
