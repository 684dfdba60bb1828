// The one assertion of an error answer (spec 2.4, section 7; rulings R9, R10): the catalogue's
// status, the code, the fixed message to the letter, error.requestId equal to the x-request-id
// header, and, when given, exactly these details (`null`: no details at all).
import { expect } from 'chai';
import type { components } from '../../generated/openapi.d.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/catalogue.ts';
import type { TestResponse } from './http-client.ts';

type ErrorEnvelope = components['schemas']['Error'];

export function expectApiError(response: TestResponse, code: ErrorCode, details?: Record<string, unknown> | null): void {
  const body = response.body as ErrorEnvelope | undefined;
  expect(body?.error?.code, `code of ${response.status} ${response.text}`).to.equal(code);
  expect(response.status, response.text).to.equal(ERROR_CATALOGUE[code].status);
  expect(body?.error.message).to.equal(ERROR_CATALOGUE[code].message);
  expect(response.headers['x-request-id']).to.be.a('string').and.not.equal('');
  expect(body?.error.requestId).to.equal(response.headers['x-request-id']);
  if (details === null) expect(body?.error).not.to.have.property('details');
  else if (details !== undefined) expect(body?.error.details).to.deep.equal(details);
}
