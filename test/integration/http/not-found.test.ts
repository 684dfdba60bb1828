// Ruling R9: a path the service does not have is 404 not_found in the error envelope, with or
// without a key, whatever the method.
import { randomUUID } from 'node:crypto';
import { expectApiError } from '../../support/expect-api-error.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

const UNKNOWN_PATHS = [
  '/',
  '/v1',
  '/v1/',
  '/v1/evidence',
  // GET /v1/evidence/reports/{id} exists (R54): a path below it does not.
  `/v1/evidence/reports/${randomUUID()}/result`,
  '/v1/usage',
  '/v1/usage/current/extra',
  '/v1/usage/previous',
  '/v2/usage/current',
  '/usage/current',
  '/openapi',
  '/health',
  '/%00',
];

describe('unknown paths (R9)', () => {
  const app = useService();

  it('an unknown path gets 404 not_found in the envelope, without a key (R9)', async () => {
    for (const path of UNKNOWN_PATHS) expectApiError(await send(app.service.url, 'GET', path), 'not_found');
  });

  it('an unknown path gets 404 not_found with a valid key too, for every method (R9)', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/v1/reports', '/v1/evidence/report', '/admin']) {
        expectApiError(await send(app.service.url, method, path, { headers: { 'x-api-key': app.customer.apiKey } }), 'not_found');
      }
    }
  });
});
