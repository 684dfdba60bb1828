// GET /docs (operator-interface.md "Health and operations"): the API reference
// page, without authentication, with the headers of every response (R9), rendered from the
// published contract (it embeds exactly contract/openapi.yaml, so it cannot drift) and asking
// nothing of any other host. The page in a real browser: docs-in-browser.test.ts.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { parse } from 'yaml';
import { remoteFetches } from '../../../scripts/build-docs.ts';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../../src/http/docs-page.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { send } from '../../support/http-client.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const CONTRACT = new URL('../../../contract/openapi.yaml', import.meta.url);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The contract Redoc renders: the JSON the page hands to Redoc's hydrate(). */
function embeddedDefinition(html: string): unknown {
  const match = /const __redoc_definition = (.*);\n/.exec(html);
  expect(match, 'the page embeds a Redoc definition').not.to.equal(null);
  return JSON.parse((match as RegExpExecArray)[1] as string);
}

describe('GET /docs: the API reference page (operator-interface.md, R9)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
  });

  it('answers 200 text/html without a key, with x-request-id and cache-control: no-store (R9)', async () => {
    const res = await send(service.url, 'GET', '/docs');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(res.headers['cache-control']).to.equal('no-store');
    expect(String(res.headers['x-request-id'])).to.match(UUID);
    expect(res.text).to.match(/^<!DOCTYPE html>/).and.include('<title>Evidence Report Service</title>');
  });

  it('renders exactly the published contract: the definition in the page equals contract/openapi.yaml', async () => {
    const res = await send(service.url, 'GET', '/docs');
    expect(embeddedDefinition(res.text)).to.deep.equal(parse(await readFile(CONTRACT, 'utf8')));
  });

  it('loads nothing from another host: no CDN script, web font or remote image, and a policy that forbids them', async () => {
    const res = await send(service.url, 'GET', '/docs');
    expect(remoteFetches(res.text)).to.deep.equal([]);
    expect(res.text).not.to.match(/<script[^>]+src=/i);
    expect(res.text).to.include('<link rel="icon" href="data:," />');
    expect(res.headers['content-security-policy']).to.equal(DOCS_CONTENT_SECURITY_POLICY);
    expect(DOCS_CONTENT_SECURITY_POLICY).to.match(/^default-src 'none'/).and.not.match(/https?:|\*/);
  });

  it('the offline check itself catches what a default Redoc build would fetch', () => {
    expect(remoteFetches('<script type="module">import { hydrate } from "https://cdn.redocly.com/redoc/v3/bundles/redoc.standalone.js";</script>')).not.to.deep.equal([]);
    expect(remoteFetches('<link href="https://fonts.googleapis.com/css?family=Roboto" rel="stylesheet">')).not.to.deep.equal([]);
    expect(remoteFetches('<img alt="logo" src="https://cdn.redoc.ly/redoc/logo-mini.svg">')).not.to.deep.equal([]);
    expect(remoteFetches('<style>@import url("//example.org/x.css");</style>')).not.to.deep.equal([]);
    expect(remoteFetches('<a href="https://redocly.com/redoc/">API docs by</a>')).to.deep.equal([]);
  });

  it('another method on /docs is 405 method_not_allowed in the envelope (R9)', async () => {
    const res = await send(service.url, 'POST', '/docs', { body: {} });
    expectApiError(res, 'method_not_allowed');
  });
});
