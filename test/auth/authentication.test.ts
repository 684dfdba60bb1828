// Spec section 5 and rulings R5, R19, R21: the same authentication cases run against every
// operation of the contract that requires x-api-key (style guide point 11).
import { expect } from 'chai';
import { runAuthenticationCases, type ProtectedOperation } from '../support/auth-cases.ts';
import { contractDocument } from '../support/contract-validator.ts';

const PROTECTED_OPERATIONS: ProtectedOperation[] = [
  {
    operationId: 'createEvidenceReport',
    method: 'POST',
    path: '/v1/evidence/reports',
    body: { context: 'property_maintenance', evidence: { text: 'Water drips from the pipe under the kitchen sink.' } },
    successStatus: 201,
  },
  { operationId: 'getCurrentUsage', method: 'GET', path: '/v1/usage/current', successStatus: 200 },
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
    const covered = PROTECTED_OPERATIONS.map((op) => `${op.method} ${op.path} ${op.operationId}`).sort();
    expect(covered).to.deep.equal(securedOperations());
  });

  for (const operation of PROTECTED_OPERATIONS) runAuthenticationCases(operation);
});
