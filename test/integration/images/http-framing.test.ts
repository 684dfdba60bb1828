import { expect } from 'chai';
import type net from 'node:net';
import { PNG } from '../../support/images/fixtures.ts';
import type { ImageFetchReason } from '../../../src/images/index.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { rawServer } from '../../support/images/raw-server.ts';

const ok = (extra = '', length: number | null = PNG.length): Buffer =>
  Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n${length === null ? '' : `Content-Length: ${length}\r\n`}${extra}\r\n`), PNG]);

describe('HTTP framing: informational and HTTP/1.0 answers work, ambiguous metadata is rejected (R23)', () => {
  const accepted: [string, (s: net.Socket) => void][] = [
    ['a 100 Continue before the answer', (s) => s.end(Buffer.concat([Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'), ok()]))],
    ['a 103 Early Hints before the answer', (s) => s.end(Buffer.concat([Buffer.from('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n'), ok()]))],
    ['an HTTP/1.0 body delimited by the connection close', (s) => s.end(Buffer.concat([Buffer.from('HTTP/1.0 200 OK\r\nContent-Type: image/png\r\n\r\n'), PNG]))],
  ];
  for (const [title, answer] of accepted) {
    it(`accepts ${title}`, async () => {
      const server = await rawServer(answer);
      try {
        const [image] = await localFetcher().fetch([server.url]);
        expect(image?.bytes.equals(PNG)).to.equal(true);
      } finally {
        await server.close();
      }
    });
  }

  const refused: [string, (s: net.Socket) => void, ImageFetchReason][] = [
    ['a 101 Switching Protocols to a plain GET', (s) => s.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'), 'http_status'],
    ['two different Content-Length headers', (s) => s.end(ok('Content-Length: 5\r\n')), 'bad_response'],
    ['a Content-Type list led by text/html', (s) => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Type: image/png\r\nContent-Length: ${PNG.length}\r\n\r\n`), PNG])), 'bad_content_type'],
    // Whichever comes first: node keeps the first and drops the rest, so order must not decide (spec 4.1, invalid metadata).
    ['a Content-Type list led by image/png', (s) => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Type: text/html\r\nContent-Length: ${PNG.length}\r\n\r\n`), PNG])), 'bad_content_type'],
    ['a body compressed although identity was asked for', (s) => s.end(ok('Content-Encoding: br\r\n')), 'bad_encoding'],
    ['a header folded over two lines (obsolete line folding)', (s) => s.end(ok('X-A: 1\r\n  continued\r\n')), 'bad_response'],
  ];
  for (const [title, answer, reason] of refused) {
    it(`rejects ${title} (${reason})`, async () => {
      const server = await rawServer(answer);
      try {
        await expectFailure(localFetcher().fetch([server.url]), { kind: 'rejected', reason }, secretsOf(server.url));
      } finally {
        await server.close();
      }
    });
  }
});
