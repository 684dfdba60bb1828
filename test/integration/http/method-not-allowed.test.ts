// Ruling R9: a known path with another method is 405 method_not_allowed in the error envelope,
// for the API operations and for the plain routes (health, readiness, contract files), and the
// operation does not run.
import { expect } from 'chai';
import { expectApiError } from '../../support/expect-api-error.ts';
import { customerFootprint } from '../../support/footprint.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

// Each path, methods it does not have, and the Allow header of their 405 (RFC 9110 15.5.6: the
// methods the path does have; koa-router's plain routes answer HEAD with each GET).
const OTHER_METHODS: [string, string[], string][] = [
  ['/v1/evidence/reports', ['GET', 'PUT', 'PATCH', 'DELETE'], 'POST'],
  ['/v1/evidence/reports/00000000-0000-4000-8000-000000000000', ['POST', 'PUT', 'DELETE', 'HEAD'], 'GET'],
  ['/v1/usage/current', ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'], 'GET'],
  ['/healthz', ['POST', 'PUT', 'DELETE'], 'HEAD, GET'],
  ['/readyz', ['POST', 'DELETE'], 'HEAD, GET'],
  ['/openapi.yaml', ['POST', 'PUT'], 'HEAD, GET'],
  ['/openapi.json', ['POST', 'DELETE'], 'HEAD, GET'],
];

describe('known paths with another method (R9)', () => {
  const app = useService();

  for (const [path, methods, allow] of OTHER_METHODS) {
    it(`${methods.join(', ')} on ${path} get 405 method_not_allowed with Allow: ${allow}, with and without a key (R9)`, async () => {
      const footprint = await customerFootprint(app.customer.customerId);
      // A valid create-report body, framed explicitly: node:http sends a GET or DELETE body
      // without content-length otherwise.
      const raw = JSON.stringify({ context: 'property_maintenance', evidence: { text: 'A door does not close.' } });
      const headers = { 'x-api-key': app.customer.apiKey, 'content-type': 'application/json', 'content-length': String(raw.length) };
      for (const method of methods) {
        const bare = await send(app.service.url, method, path);
        const keyed = await send(app.service.url, method, path, { headers, raw });
        for (const res of [bare, keyed]) {
          // A HEAD answer has no body to hold the envelope; its status and headers say the same.
          if (method === 'HEAD') expect(res.status).to.equal(405);
          else expectApiError(res, 'method_not_allowed');
          expect(res.headers.allow, `${method} ${path}`).to.equal(allow);
        }
      }
      expect(await customerFootprint(app.customer.customerId)).to.deep.equal(footprint);
    });
  }
});
