import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';
import type { Route } from '../../support/images/image-server.ts';

const status = (code: number): Route => serve(PNG, 'image/png', { status: code });

describe('status: 408, 429 and 5xx are unavailable, other non-2xx rejected (R23)', () => {
  let server: ImageServer;
  const codes = [200, 201, 203, 204, 205, 206, 300, 304, 305, 306, 400, 401, 403, 404, 408, 410, 418, 429, 451, 500, 502, 503, 504, 599];
  before(async () => {
    server = await new ImageServer(Object.fromEntries(codes.map((c) => [`/${c}`, status(c)]))).listen();
  });
  after(() => server.close());

  for (const code of [200, 201, 203]) {
    it(`${code} with an image body is accepted (a 2xx proceeds to the content checks)`, async () => {
      const [image] = await localFetcher().fetch([server.url(`/${code}`)]);
      expect(image?.mimeType).to.equal('image/png');
    });
  }
  for (const code of [408, 429, 500, 502, 503, 504, 599]) {
    it(`${code} is unavailable (R23: 408, 429, 5xx give 503)`, async () => {
      const url = server.url(`/${code}`);
      await expectFailure(localFetcher().fetch([url]), { kind: 'unavailable', reason: 'http_status' }, secretsOf(url));
    });
  }
  for (const code of [204, 205, 206, 300, 304, 305, 306, 400, 401, 403, 404, 410, 418, 451]) {
    it(`${code} is rejected (R23: non-2xx other than 408/429/5xx; 204/205 carry no body, 206 was never asked for)`, async () => {
      const url = server.url(`/${code}`);
      await expectFailure(localFetcher().fetch([url]), { kind: 'rejected', reason: 'http_status' }, secretsOf(url));
    });
  }
});
