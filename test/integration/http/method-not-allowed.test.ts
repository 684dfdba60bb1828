// Ruling R9: a known path with another method is 405 method_not_allowed in the error envelope,
// for the API operations and for the plain routes (health, readiness, contract files), and the
// operation does not run.
import { expect } from 'chai';
import { expectApiError } from '../../support/expect-api-error.ts';
import { customerFootprint } from '../../support/footprint.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

const OTHER_METHODS: [string, string[]][] = [
  ['/v1/evidence/reports', ['GET', 'PUT', 'PATCH', 'DELETE']],
  ['/v1/usage/current', ['POST', 'PUT', 'PATCH', 'DELETE']],
  ['/healthz', ['POST', 'PUT', 'DELETE']],
  ['/readyz', ['POST', 'DELETE']],
  ['/openapi.yaml', ['POST', 'PUT']],
  ['/openapi.json', ['POST', 'DELETE']],
];

describe('known paths with another method (R9)', () => {
  const app = useService();

  for (const [path, methods] of OTHER_METHODS) {
    it(`${methods.join(', ')} on ${path} get 405 method_not_allowed, with and without a key (R9)`, async () => {
      const footprint = await customerFootprint(app.customer.customerId);
      // A valid create-report body, framed explicitly: node:http sends a GET or DELETE body
      // without content-length otherwise.
      const raw = JSON.stringify({ context: 'property_maintenance', evidence: { text: 'A door does not close.' } });
      const headers = { 'x-api-key': app.customer.apiKey, 'content-type': 'application/json', 'content-length': String(raw.length) };
      for (const method of methods) {
        expectApiError(await send(app.service.url, method, path), 'method_not_allowed');
        expectApiError(await send(app.service.url, method, path, { headers, raw }), 'method_not_allowed');
      }
      expect(await customerFootprint(app.customer.customerId)).to.deep.equal(footprint);
    });
  }
});
