// Spec section 5 and rulings R5, R19, R21: the same authentication cases run against every
// operation of the contract that requires x-api-key, from one shared list.
import { expect } from 'chai';
import { runAuthenticationCases, type ProtectedOperation } from '../../support/auth-cases.ts';
import { contractDocument } from '../../support/contract-validator.ts';

const PROTECTED_OPERATIONS: ProtectedOperation[] = [
  {
    operationId: 'createEvidenceReport',
    method: 'POST',
    path: '/v1/evidence/reports',
    body: { context: 'property_maintenance', evidence: { text: 'Water drips from the pipe under the kitchen sink.' } },
    successStatus: 201,
  },
  { operationId: 'getCurrentUsage', method: 'GET', path: '/v1/usage/current', successStatus: 200 },
  // R54: an id that is no report of the caller's: once authenticated, the answer is its 404.
  {
    operationId: 'getEvidenceReport',
    method: 'GET',
    path: '/v1/evidence/reports/6f1c1f3e-1b5a-4a4e-9d55-3f6a0a1b2c3d',
    successStatus: 404,
  },
];

type Operation = { operationId?: string; security?: unknown[] };

/** Every operation of the published contract that needs a key: document security unless overridden. */
function securedOperations(): string[] {
  const defaultSecurity = (contractDocument.security as unknown[] | undefined) ?? [];
  const paths = contractDocument.paths as Record<string, Record<string, Operation>>;
  const ids: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) continue;
      if ((operation.security ?? defaultSecurity).length > 0) ids.push(`${method.toUpperCase()} ${path} ${operation.operationId}`);
    }
  }
  return ids.sort();
}

describe('authentication runs the same cases for every protected operation (spec section 5)', () => {
  it('the shared cases cover every operation of the contract that requires x-api-key (spec 5.1)', () => {
    // A path with a report id is the contract's template /v1/evidence/reports/{id}.
    const template = (path: string) => path.replace(/\/[0-9a-f-]{36}$/, '/{id}');
    const covered = PROTECTED_OPERATIONS.map((op) => `${op.method} ${template(op.path)} ${op.operationId}`).sort();
    expect(covered).to.deep.equal(securedOperations());
  });

  for (const operation of PROTECTED_OPERATIONS) runAuthenticationCases(operation);
});
