// The error envelope of spec 2.4 with the catalogue's status and fixed message (rulings R9, R10).
import { expect } from 'chai';
import type { components } from '../../generated/openapi.d.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/catalogue.ts';
import type { TestResponse } from './http-client.ts';

type ErrorEnvelope = components['schemas']['Error'];

/** Status, code, fixed message, and error.requestId equal to the x-request-id header. */
export function expectApiError(response: TestResponse, code: ErrorCode): void {
  const body = response.body as ErrorEnvelope;
  expect(response.status, JSON.stringify(response.body)).to.equal(ERROR_CATALOGUE[code].status);
  expect(body.error.code).to.equal(code);
  expect(body.error.message).to.equal(ERROR_CATALOGUE[code].message);
  expect(response.headers['x-request-id']).to.be.a('string').and.not.equal('');
  expect(body.error.requestId).to.equal(response.headers['x-request-id']);
}
