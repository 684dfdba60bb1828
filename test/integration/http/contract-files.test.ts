// operator-interface.md "Health and operations" and ruling R0: the published contract is served
// as committed, without authentication: /openapi.yaml byte for byte, /openapi.json the same
// document.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { parse } from 'yaml';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

const CONTRACT = new URL('../../../contract/openapi.yaml', import.meta.url);

describe('the published contract files (operator-interface.md, R0)', () => {
  let committed: Buffer;

  const app = useService();
  before(async () => {
    committed = await readFile(CONTRACT);
  });

  it('GET /openapi.yaml returns contract/openapi.yaml byte for byte, without a key', async () => {
    const response = await send(app.service.url, 'GET', '/openapi.yaml');
    expect(response.status).to.equal(200);
    expect(String(response.headers['content-type'])).to.match(/yaml/);
    expect(Buffer.from(response.text, 'utf8').equals(committed)).to.equal(true);
  });

  it('GET /openapi.json parses to the same document as the committed YAML, without a key', async () => {
    const response = await send(app.service.url, 'GET', '/openapi.json');
    expect(response.status).to.equal(200);
    expect(String(response.headers['content-type'])).to.match(/^application\/json/);
    expect(response.body).to.deep.equal(parse(committed.toString('utf8')));
    expect((response.body as { openapi: string }).openapi).to.equal('3.0.3');
  });
});
