import type net from 'node:net';
import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import type { ImageFetchReason } from '../../../src/images/index.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { rawServer } from '../../support/images/raw-server.ts';

const head = (length: number | 'chunked', type = 'image/png'): string =>
  `HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\nConnection: close\r\n\r\n`;

describe('broken connections: refused, reset or cut short is unavailable, garbage or a body its own headers misdescribe is rejected (R23)', () => {
  const cases: [string, (s: net.Socket) => void, 'rejected' | 'unavailable', ImageFetchReason][] = [
    ['socket closed mid-body (Content-Length longer than the body)', (s) => s.end(Buffer.concat([Buffer.from(head(PNG.length * 2)), PNG])), 'unavailable', 'connection'],
    ['socket reset mid-body', (s) => {
      s.write(Buffer.concat([Buffer.from(head(PNG.length * 2)), PNG]));
      setTimeout(() => s.resetAndDestroy(), 20);
    }, 'unavailable', 'connection'],
    ['chunked body cut before its last chunk', (s) => s.end(`${head('chunked')}${PNG.length.toString(16)}\r\n${PNG.toString('latin1')}\r\n`, 'latin1'), 'unavailable', 'connection'],
    // Invalid response metadata (spec 4.1, remote image rule 3): the server's own headers lie about its body.
    ['Content-Length shorter than the body that follows', (s) => s.end(Buffer.concat([Buffer.from(head(16)), PNG])), 'rejected', 'length_mismatch'],
    ['connection closed before any response', (s) => s.destroy(), 'unavailable', 'connection'],
    ['connection reset before any response', (s) => s.resetAndDestroy(), 'unavailable', 'connection'],
    ['a response that is not HTTP', (s) => s.end('SSH-2.0-OpenSSH_9.6\r\n'), 'rejected', 'bad_response'],
    ['a Redis-style reply', (s) => s.end('-ERR unknown command\r\n'), 'rejected', 'bad_response'],
    ['both Content-Length and chunked', (s) => s.end(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`), 'rejected', 'bad_response'],
    ['an oversized header block', (s) => s.end(`HTTP/1.1 200 OK\r\nX-Pad: ${'a'.repeat(70_000)}\r\n\r\n`), 'rejected', 'bad_response'],
  ];

  for (const [title, answer, kind, reason] of cases) {
    it(`${title}: ${kind} (${reason})`, async () => {
      const server = await rawServer(answer);
      try {
        await expectFailure(localFetcher().fetch([server.url]), { kind, reason }, secretsOf(server.url));
      } finally {
        await server.close();
      }
    });
  }

  it('a refused connection is unavailable (connection)', async () => {
    const server = await rawServer(() => {});
    const url = server.url;
    await server.close();
    await expectFailure(localFetcher().fetch([url]), { kind: 'unavailable', reason: 'connection' }, secretsOf(url));
  });

  it('a failed DNS resolution is unavailable (dns_failure), and so is an empty answer', async () => {
    await expectFailure(localFetcher().fetch(['http://unknown.test/x.png']), { kind: 'unavailable', reason: 'dns_failure' }, ['unknown.test']);
    const empty = localFetcher({ resolver: async () => [] });
    await expectFailure(empty.fetch(['http://img.test/x.png']), { kind: 'unavailable', reason: 'dns_failure' }, ['img.test']);
    const again = localFetcher({
      resolver: async () => {
        throw Object.assign(new Error('getaddrinfo EAI_AGAIN img.test'), { code: 'EAI_AGAIN' });
      },
    });
    const error = await expectFailure(again.fetch(['http://img.test/x.png']), { kind: 'unavailable', reason: 'dns_failure' }, ['img.test']);
    expect(JSON.stringify(error)).not.to.include('EAI_AGAIN');
  });
});
