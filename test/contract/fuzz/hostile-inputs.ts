// Hostile requests beyond the body schema: random JSON, random
// bytes, random and repeated headers, bodies near and over the size limit, deeply nested
// bodies. Each input says what a correct service must answer where a ruling fixes it (R5, R6,
// R11, R29); elsewhere only the general properties hold (fuzz-target.ts).
import fc from 'fast-check';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { isValidRequestBody, nearValidBody, validBody } from './request-body.ts';

export type Headers = Record<string, string | string[]>;

export interface HostileRequest {
  method: 'POST' | 'GET';
  path: string;
  headers: Headers;
  raw?: Buffer | string;
  /** The answer the rulings fix for this input, when they do. */
  expect?: { status: number; codes?: readonly ErrorCode[] };
  /** A label for failure reports. */
  shape: string;
}

/** A short description: what failure reports and fast-check's counterexamples print. */
export function describeRequest(request: HostileRequest): string {
  const raw = request.raw === undefined ? undefined : Buffer.from(request.raw);
  const preview = raw === undefined ? '(no body)' : `${raw.length} bytes: ${JSON.stringify(raw.subarray(0, 300).toString('utf8'))}${raw.length > 300 ? '...' : ''}`;
  return `${request.shape}: ${request.method} ${request.path} headers ${JSON.stringify(request.headers).slice(0, 600)} body ${preview}`;
}

/** Makes fast-check print the request the short way (a 1 MiB body would flood the report). */
export function labelled(request: HostileRequest): HostileRequest {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}

export const REPORTS = '/v1/evidence/reports';
export const USAGE = '/v1/usage/current';

// What node:http lets a client put in a header value: tab, visible ASCII, space and latin-1.
const HEADER_CHAR = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\t', ' ', '\u00a0', '\u00e9', '\u00ff', '\u0085') },
);
const headerText = (maxLength: number) => fc.string({ unit: HEADER_CHAR, maxLength });

/** Random case for a header name ("Idempotency-Key", "IDEMPOTENCY-KEY", ...). */
const casing = (name: string) => fc.boolean().chain((upper) => fc.constant(upper ? name.toUpperCase() : name));

const CONTENT_TYPES = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8', ' application/json ') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonp',
      'application/json-patch+json',
      'application/problem+json',
      'multipart/form-data; boundary=x',
      '',
      ';',
    ),
  },
  { weight: 1, arbitrary: headerText(40) },
);

/** R6: application/json, parameters allowed. */
function isJsonMediaType(value: string | undefined): boolean {
  return (value ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** The early answer R5, R6, R11 and R29 fix for these headers (undefined: the body decides). */
export function earlyAnswer(method: 'POST' | 'GET', apiKey: string, keys: string[], contentType: string | undefined, idempotencyKeys: string[]): ErrorCode | undefined {
  if (keys.length > 1) return 'invalid_api_key';
  const key = keys[0]?.trim() ?? '';
  if (key === '') return 'missing_api_key';
  if (key !== apiKey) return 'invalid_api_key';
  if (method === 'GET') return undefined;
  if (!isJsonMediaType(contentType)) return 'invalid_request_payload';
  if (idempotencyKeys.length > 1) return 'invalid_idempotency_key';
  const idempotencyKey = idempotencyKeys[0]?.trim();
  if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || [...idempotencyKey].length > 255)) return 'invalid_idempotency_key';
  return undefined;
}

const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  invalid_api_key: 401,
  missing_api_key: 401,
  invalid_request_payload: 400,
  invalid_idempotency_key: 400,
};

/** Random, blank, padded, repeated and correct x-api-key / Idempotency-Key / content-type headers. */
export function hostileHeaders(apiKey: string): fc.Arbitrary<HostileRequest> {
  // Weighted so that about half the requests get past authentication and the content type.
  const apiKeys: fc.Arbitrary<string[]> = fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 6, arbitrary: fc.constant<string[]>([apiKey]) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string[]>([` ${apiKey} `], [`\t${apiKey}`], [`\u00a0${apiKey}`], [''], ['   '], [apiKey.toUpperCase()], [`${apiKey}x`], [apiKey.slice(0, -1)]),
    },
    { weight: 1, arbitrary: fc.array(fc.oneof(fc.constant(apiKey), headerText(60)), { minLength: 1, maxLength: 3 }) },
  );
  const idempotencyKeys: fc.Arbitrary<string[]> = fc.oneof(
    { weight: 3, arbitrary: fc.constant<string[]>([]) },
    { weight: 2, arbitrary: fc.uuid().map((k) => [k]) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string[]>([''], ['   '], ['\t'], ['\u00a0'], ['k'.repeat(255)], ['k'.repeat(256)], [` ${'k'.repeat(255)} `], [`\u00a0${'k'.repeat(255)}`]),
    },
    { weight: 2, arbitrary: fc.array(headerText(300), { minLength: 1, maxLength: 3 }) },
  );
  const body = fc.oneof(
    { weight: 3, arbitrary: validBody.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: nearValidBody.map((n) => JSON.stringify(n.body)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  );
  const extras = fc.dictionary(
    fc.constantFrom('x-forwarded-for', 'accept', 'accept-encoding', 'x-request-id', 'authorization', 'cookie', 'x-random'),
    headerText(40),
    { maxKeys: 3 },
  );
  return fc
    .record({
      method: fc.constantFrom<'POST' | 'GET'>('POST', 'POST', 'POST', 'GET'),
      apiKeys,
      apiKeyName: casing('x-api-key'),
      contentType: fc.option(CONTENT_TYPES, { nil: undefined }),
      idempotencyKeys,
      idempotencyName: casing('Idempotency-Key'),
      chunked: fc.boolean(),
      extras,
      body,
    })
    .map((r) => {
      const headers: Headers = { ...r.extras };
      if (r.apiKeys.length > 0) headers[r.apiKeyName] = r.apiKeys.length === 1 ? (r.apiKeys[0] as string) : r.apiKeys;
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      if (r.idempotencyKeys.length > 0) headers[r.idempotencyName] = r.idempotencyKeys.length === 1 ? (r.idempotencyKeys[0] as string) : r.idempotencyKeys;
      if (r.chunked && r.method === 'POST') headers['transfer-encoding'] = 'chunked';
      const code = earlyAnswer(r.method, apiKey, r.apiKeys, r.contentType, r.idempotencyKeys);
      return labelled({
        method: r.method,
        path: r.method === 'POST' ? REPORTS : USAGE,
        headers,
        raw: r.method === 'POST' ? r.body : undefined,
        expect: code !== undefined ? { status: STATUS_OF[code] as number, codes: [code] } : r.method === 'GET' ? { status: 200 } : bodyAnswer(r.body),
        shape: 'headers',
      });
    });
}

export const jsonHeaders = (apiKey: string): Headers => ({ 'x-api-key': apiKey, 'content-type': 'application/json' });

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * What the body alone must get once the headers are right (R29: JSON syntax, then schema):
 * 400 invalid_json, 400 invalid_request_payload, or nothing fixed (a valid request: 201, or
 * 422 over an unpublished limit).
 */
export function bodyAnswer(raw: Buffer | string): HostileRequest['expect'] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(Buffer.from(raw)));
  } catch {
    return { status: 400, codes: ['invalid_json'] };
  }
  return isValidRequestBody(parsed) ? undefined : { status: 400, codes: ['invalid_request_payload'] };
}

/** Any JSON value as the body: a 400 unless it happens to be a valid request. */
export function randomJson(apiKey: string): fc.Arbitrary<HostileRequest> {
  const values = fc.oneof(fc.jsonValue(), fc.object(), fc.anything().filter((v) => JSON.stringify(v) !== undefined));
  return values.map((value) => {
    const raw = JSON.stringify(value);
    return labelled({ method: 'POST', path: REPORTS, headers: jsonHeaders(apiKey), raw, expect: bodyAnswer(raw), shape: 'random JSON' });
  });
}

/** Random bytes, alone or spliced into a valid body. */
export function randomBytes(apiKey: string): fc.Arbitrary<HostileRequest> {
  const spliced = fc
    .tuple(validBody, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 }))
    .map(([body, at, bytes]) => {
      const text = Buffer.from(JSON.stringify(body));
      const cut = at % (text.length + 1);
      return Buffer.concat([text.subarray(0, cut), Buffer.from(bytes), text.subarray(cut)]);
    });
  return fc.oneof(fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)), spliced).map((raw) =>
    labelled({ method: 'POST', path: REPORTS, headers: jsonHeaders(apiKey), raw, expect: bodyAnswer(raw), shape: 'random bytes' }),
  );
}

/**
 * Bodies around the size limit (R6): a valid body padded with whitespace (201 up to the limit),
 * long text in ASCII or multi-byte characters (422 over the text limit, R7), sent with a
 * length or chunked; above the limit, always 400 invalid_request_payload.
 */
export function hugeBodies(apiKey: string, bodyMaxBytes: number): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      size: fc.oneof(fc.integer({ min: bodyMaxBytes - 64, max: bodyMaxBytes + 64 }), fc.integer({ min: bodyMaxBytes - 4096, max: bodyMaxBytes + 4096 })),
      kind: fc.constantFrom('whitespace', 'ascii text', 'two-byte text', 'four-byte text'),
      chunked: fc.boolean(),
      body: validBody,
    })
    .map(({ size, kind, chunked, body }) => {
      let raw: Buffer;
      if (kind === 'whitespace') {
        const text = Buffer.from(JSON.stringify(body));
        raw = Buffer.concat([text, Buffer.alloc(Math.max(0, size - text.length), ' ')]);
      } else {
        const char = { 'ascii text': 'a', 'two-byte text': '\u00e9', 'four-byte text': '😀' }[kind] as string;
        const frame = Buffer.from(JSON.stringify({ context: 'inventory_check', evidence: { text: '' } }));
        const count = Math.max(1, Math.floor((size - frame.length) / Buffer.byteLength(char)));
        raw = Buffer.from(JSON.stringify({ context: 'inventory_check', evidence: { text: char.repeat(count) } }));
      }
      const headers: Headers = jsonHeaders(apiKey);
      if (chunked) headers['transfer-encoding'] = 'chunked';
      let expected: HostileRequest['expect'];
      if (raw.length > bodyMaxBytes) expected = { status: 400, codes: ['invalid_request_payload'] };
      else if (kind !== 'whitespace') expected = { status: 422, codes: ['invalid_evidence_report_input'] };
      return labelled({ method: 'POST', path: REPORTS, headers, raw, expect: expected, shape: `huge ${kind} ${raw.length} bytes${chunked ? ' chunked' : ''}` });
    });
}

/** 10,000 levels and more of [ or {, balanced or not, at the root or inside evidence. */
export function nestedBodies(apiKey: string, bodyMaxBytes: number): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      depth: fc.oneof(fc.constant(10_000), fc.integer({ min: 1_000, max: Math.floor(bodyMaxBytes / 5) })),
      open: fc.constantFrom('[', '{"a":', '{"evidence":'),
      balanced: fc.boolean(),
      where: fc.constantFrom('root', 'images', 'text', 'context'),
    })
    .map(({ depth, open, balanced, where }) => {
      const close = open === '[' ? ']' : '}';
      const nested = `${open.repeat(depth)}1${balanced ? close.repeat(depth) : ''}`;
      const framed = {
        root: nested,
        images: `{"context":"damage_report","evidence":{"text":"x","images":${nested}}}`,
        text: `{"context":"damage_report","evidence":{"text":${nested}}}`,
        context: `{"context":${nested},"evidence":{"text":"x"}}`,
      }[where];
      const raw = Buffer.from(framed);
      const codes: ErrorCode[] = raw.length > bodyMaxBytes ? ['invalid_request_payload'] : ['invalid_json', 'invalid_request_payload'];
      const shape = `nested ${depth} x ${open} in ${where}${balanced ? '' : ' unbalanced'}`;
      return labelled({ method: 'POST', path: REPORTS, headers: jsonHeaders(apiKey), raw, expect: { status: 400, codes }, shape });
    });
}
