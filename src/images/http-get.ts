// One HTTP exchange of an image fetch, on a connection to an address that was
// checked before this is called (R22). Redirects are returned, never followed
// here; the body is read under the size limit and checked against its declared
// type as it arrives. Failures are ImageRefusal with a reason from the closed list.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { acceptedMediaType, SIGNATURE_BYTES, signatureMatches } from './image-content.ts';
import { rejected, unavailable } from './image-fetch-error.ts';
import type { ImageRefusal } from './image-fetch-error.ts';
import type { ImageMimeType } from './image-fetcher.ts';
import type { ImageTarget } from './image-url.ts';

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

interface HttpGetOptions {
  readonly target: ImageTarget;
  /** The checked address to connect to, formatted from its bytes. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
  /**
   * Reserves bytes of the in-flight budget: true at once, false (over budget), or a promise of
   * either when the room may come back from the same request's other images (BudgetLease); the
   * body is paused meanwhile.
   */
  readonly reserve: (bytes: number) => boolean | Promise<boolean>;
  readonly userAgent: string;
  readonly ca: string | Buffer | (string | Buffer)[] | undefined;
}

type HttpGetResult =
  | { readonly type: 'redirect'; readonly location: string | undefined }
  | { readonly type: 'image'; readonly bytes: Buffer; readonly mimeType: ImageMimeType; readonly sha256: string };

/** Marks a failure caused by the abort signal; the caller decides what it means. */
export const ABORTED = Symbol('aborted');

// Certificate and handshake failures: the peer could not prove it is the host we
// meant, so the destination is unsafe (R23 "unsafe destination" -> rejected).
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

function classify(error: unknown, responded: boolean): ImageRefusal {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  // The parser refused what came back: not HTTP at all before a response, or a body that broke
  // the framing its own headers declared after one (more bytes than its Content-Length, a
  // malformed chunk): invalid response metadata, which a retry does not mend, rejected (spec
  // 4.1, remote image rule 3). A body cut short (fewer bytes, then a close) stays unavailable.
  if (code.startsWith('HPE_')) return responded ? rejected('length_mismatch') : rejected('bad_response');
  if (TLS_CODE.test(code)) return rejected('tls');
  return unavailable('connection');
}

function statusRefusal(status: number): ImageRefusal | undefined {
  // R23: 408, 429 and 5xx may pass; every other non-2xx is a refusal. 204/205 carry no
  // body and 206 answers a range never asked for: refused as well.
  if (status === 408 || status === 429 || (status >= 500 && status <= 599)) return unavailable('http_status');
  if (status < 200 || status > 299 || status === 204 || status === 205 || status === 206) {
    return rejected('http_status');
  }
  return undefined;
}

export function httpGet(options: HttpGetOptions): Promise<HttpGetResult> {
  const { target, address, family, signal, maxBytes } = options;
  return new Promise((resolve, reject) => {
    let result: HttpGetResult | undefined;
    let failure: ImageRefusal | typeof ABORTED | undefined;
    let responded = false;
    /** A chunk waiting for room (reserve's promise): the body's end and the close are judged after it. */
    let waiting: Promise<void> | undefined;
    const afterWaiting = (then: () => void): void => {
      if (waiting === undefined) then();
      else void waiting.then(then);
    };

    // Defence in depth: the host is already an IP, so no lookup should happen; if one
    // did, it could only answer the checked address.
    const pinned: LookupFunction = (_host, opts, callback) => {
      if (opts.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const request = (target.https ? https : http).request({
      host: address,
      family,
      port: target.port,
      method: 'GET',
      path: target.url.pathname + target.url.search,
      agent: false,
      lookup: pinned,
      setHost: false,
      // Never the lenient parser, even if the process was started with --insecure-http-parser.
      insecureHTTPParser: false,
      signal,
      headers: {
        Host: target.url.host,
        Accept: 'image/jpeg, image/png, image/gif, image/webp',
        'Accept-Encoding': 'identity',
        'User-Agent': options.userAgent,
        Connection: 'close',
      },
      ...(target.https ? { servername: target.hostname ?? '', rejectUnauthorized: true, ca: options.ca } : {}),
    });

    const fail = (refusal: ImageRefusal): void => {
      if (failure === undefined && result === undefined) failure = refusal;
      request.destroy();
    };
    const onError = (error: unknown): void => {
      const refusal = signal.aborted ? ABORTED : classify(error, responded);
      if (result === undefined) {
        failure ??= refusal;
      } else if (result.type === 'image' && refusal !== ABORTED && refusal.reason === 'length_mismatch') {
        // More bytes than declared, seen right after the last one: the body we had
        // accepted is not what the server sent.
        result = undefined;
        failure ??= refusal;
      }
      // Otherwise the exchange was complete (or a redirect we cut short on purpose).
    };

    request.on('error', onError);
    request.on('upgrade', (_res, socket) => {
      socket.destroy();
      fail(rejected('http_status'));
    });
    request.on('close', () =>
      afterWaiting(() => {
        if (result !== undefined && failure === undefined) resolve(result);
        else reject(failure ?? (signal.aborted ? ABORTED : unavailable('connection')));
      }),
    );
    request.on('response', (res: IncomingMessage) => {
      responded = true;
      res.on('error', onError);
      const status = res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        result = { type: 'redirect', location: res.headers.location };
        res.destroy();
        return;
      }
      const refusal = statusRefusal(status) ?? headerRefusal(res, maxBytes);
      if (refusal !== undefined) return fail(refusal);
      const mimeType = acceptedMediaType(res.headers['content-type']) as ImageMimeType;
      const declared = res.headers['content-length'] === undefined ? undefined : Number(res.headers['content-length']);
      // The budget is reserved as the bytes arrive (below), not for the declared (or the largest
      // allowed) length up front: a host that declares 10 MiB, or none, and then sends a trickle
      // would otherwise hold 10 MiB of the budget per image until the deadline, and a customer
      // naming such hosts could take the budget from every other customer for nothing. So what
      // an image holds on the caller's lease is exactly its bytes.

      // With a declared length (at most maxBytes, checked above), the body is
      // copied once into its final buffer; otherwise the chunks are joined at the end.
      const sized = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
      const chunks: Buffer[] = [];
      // Hashed as it arrives: no 10 ms block of the event loop per multi-MB photo at the end.
      const hash = createHash('sha256');
      let total = 0;
      let sniffed = false;
      const received = (): Buffer => (sized ? sized.subarray(0, total) : Buffer.concat(chunks, total));
      const take = (chunk: Buffer): void => {
        if (sized) {
          if (total + chunk.length > sized.length) return fail(rejected('length_mismatch'));
          chunk.copy(sized, total);
        } else {
          chunks.push(chunk);
        }
        hash.update(chunk);
        total += chunk.length;
        if (!sniffed && total >= SIGNATURE_BYTES) {
          sniffed = true;
          if (!signatureMatches(mimeType, received())) fail(rejected('content_mismatch'));
        }
      };
      res.on('data', (chunk: Buffer) => {
        if (failure !== undefined) return;
        // Stop the moment the running total passes the limit, whatever was declared.
        if (total + chunk.length > maxBytes) return fail(rejected('too_large'));
        const room = options.reserve(chunk.length);
        if (room === true) return take(chunk);
        if (room === false) return fail(unavailable('budget'));
        // Waiting for the request's own images to make room: no further chunk until this one is taken.
        res.pause();
        waiting = room.then(
          (reserved) => {
            waiting = undefined;
            if (failure !== undefined) return;
            if (!reserved) return fail(unavailable('budget'));
            take(chunk);
            res.resume();
          },
          // Aborted (the deadline, or the batch failed): the signal destroys the request and says why.
          () => {
            waiting = undefined;
          },
        );
      });
      // The body may have ended (its last chunk read) while that chunk waits for room.
      res.on('end', () =>
        afterWaiting(() => {
          if (failure !== undefined) return;
          if (!res.complete) return fail(unavailable('connection'));
          const bytes = received();
          if (total === 0) return fail(rejected('empty_body'));
          if (!signatureMatches(mimeType, bytes)) return fail(rejected('content_mismatch'));
          result = { type: 'image', bytes, mimeType, sha256: hash.digest('hex') };
        }),
      );
    });
    request.end();
  });
}

function headerRefusal(res: IncomingMessage, maxBytes: number): ImageRefusal | undefined {
  const encoding = res.headers['content-encoding'];
  // Accept-Encoding: identity was sent; an encoded body would not be the image bytes.
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return rejected('bad_encoding');
  // node keeps the first of several Content-Type headers and drops the rest: which one the host
  // meant is unknown, invalid response metadata (spec 4.1), whatever their order.
  if ((res.headersDistinct['content-type']?.length ?? 0) > 1) return rejected('bad_content_type');
  if (acceptedMediaType(res.headers['content-type']) === undefined) return rejected('bad_content_type');
  const length = res.headers['content-length'];
  if (length !== undefined) {
    if (!/^\d+$/.test(length)) return rejected('bad_response');
    // Refused before reading a byte of the body.
    if (Number(length) > maxBytes) return rejected('too_large');
    if (Number(length) === 0) return rejected('empty_body');
  }
  return undefined;
}
