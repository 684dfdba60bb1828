// R14: "Completed keys are kept 24 hours (configurable) ... the contract publishes the
// retention." An instance serves the retention it applies: /openapi.yaml, /openapi.json and
// /docs state IDEMPOTENCY_RETENTION_HOURS, the committed contract its default.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CONTRACT_PATH } from '../../../src/http/contract.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

const text = async (url: string, path: string): Promise<string> => {
  const res = await fetch(new URL(path, url));
  expect(res.status).to.equal(200);
  return res.text();
};

describe('the published Idempotency-Key retention (R14)', () => {
  it('every "24 hours" of the committed contract is that retention, so an instance can state its own', () => {
    const contract = readFileSync(CONTRACT_PATH, 'utf8').replaceAll(/\s+/g, ' ');
    const all = contract.match(/24 hours/g) ?? [];
    const retention = contract.match(/Completed keys are (?:kept|retained) for 24 hours|once the 24 hours of `Idempotency-Key` replay/g) ?? [];
    expect(all.length).to.be.at.least(1);
    expect(retention.length).to.equal(all.length);
  });

  describe('an instance with IDEMPOTENCY_RETENTION_HOURS=1', () => {
    const app = useService({ IDEMPOTENCY_RETENTION_HOURS: '1' });

    it('serves 1 hour in the YAML, the JSON and the reference page, and 24 hours nowhere', async () => {
      for (const path of ['/openapi.yaml', '/openapi.json', '/docs']) {
        const body = (await text(app.service.url, path)).replaceAll(/\\n|\s+/g, ' ');
        expect(body, path).to.include('Completed keys are kept for 1 hour,');
        expect(body, path).not.to.include('24 hours');
      }
      // The served document is also the one requests are routed and checked by.
      expect((await send(app.service.url, 'GET', '/v1/usage/current')).status).to.equal(401);
    });
  });

  describe('an instance with the default retention', () => {
    const app = useService({});

    it('serves the committed contract as it is', async () => {
      expect(await text(app.service.url, '/openapi.yaml')).to.equal(readFileSync(CONTRACT_PATH, 'utf8'));
    });
  });
});
