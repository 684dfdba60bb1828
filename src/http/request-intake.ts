// Step 2 of the pipeline up to the schema check, in the order of ruling R29: content type,
// Idempotency-Key header, then the body (size, then JSON syntax). It runs only after
// authentication succeeded (ruling R5), so an unauthenticated caller never makes us read a body.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/catalogue.ts';

const IDEMPOTENCY_KEY_MAX = 255;

/** Ruling R6: application/json, parameters such as charset allowed; anything else is a 400. */
function checkJsonContentType(req: IncomingMessage): void {
  const header = req.headers['content-type'];
  const mediaType = (header ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new ApiError('invalid_request_payload', { details: { pointer: '', rule: 'contentType' } });
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A header value as the characters it spells. node:http gives each byte as one character
 * (latin1); a value written in UTF-8 is read as UTF-8, so that its length counts characters, not
 * bytes. Bytes that are not UTF-8 stay as they came.
 */
function headerText(value: string): string {
  if (!/[\u0080-\uffff]/.test(value)) return value;
  try {
    return strictUtf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/**
 * Ruling R11: trimmed, 1 to 255 characters, sent at most once. Returns undefined when absent.
 * Repeated headers are seen through headersDistinct (req.headers would join them with ", ").
 */
function readIdempotencyKey(req: IncomingMessage): string | undefined {
  const values = req.headersDistinct['idempotency-key'];
  if (values === undefined) return undefined;
  const key = values.length === 1 ? headerText(values[0] ?? '').trim() : '';
  if (values.length !== 1 || key.length < 1 || [...key].length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError('invalid_idempotency_key');
  }
  return key;
}

/**
 * Reads at most `maxBytes`; a longer body is a 400 invalid_request_payload (R6: no 413).
 * A body that declares its length is refused before it is read; node:http then reads and drops
 * the declared rest, so the connection stays usable. A body without a length (chunked) is read
 * only up to the limit, since its rest may never end: the connection then cannot carry another
 * request, and the answer says `connection: close`, or a keep-alive client would send its next
 * request onto a socket that is being reset.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = (headers?: Record<string, string>) => new ApiError('invalid_request_payload', { details: { pointer: '', rule: 'maxBodySize' }, ...(headers && { headers }) });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge({ connection: 'close' });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Malformed JSON, including bytes that are not UTF-8, is 400 invalid_json. */
function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(body));
  } catch {
    throw new ApiError('invalid_json');
  }
}

/** What step 2 reads from a request with a body, before the contract's schema checks it. */
export interface Intake {
  readonly idempotencyKey: string | undefined;
  readonly body: object | undefined;
}

/** R29's order: content type, Idempotency-Key, body size, JSON syntax; the body must be an object. */
export async function readIntake(req: IncomingMessage, maxBytes: number): Promise<Intake> {
  checkJsonContentType(req);
  const idempotencyKey = readIdempotencyKey(req);
  const body = parseJson(await readBody(req, maxBytes));
  // openapi-backend re-parses string bodies as JSON: only objects may reach it, so a JSON
  // string such as "{\"context\":...}" can never be taken for an object.
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('invalid_request_payload', { details: { pointer: '', rule: 'type' } });
  }
  return { idempotencyKey, body };
}
