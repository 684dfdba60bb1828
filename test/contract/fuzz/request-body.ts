// The request body of createEvidenceReport as fast-check sees it, all derived from
// contract/openapi.yaml: the schema is found through the operation's requestBody, valid bodies
// come from schema-arbitrary.ts, and near-valid bodies break exactly one rule at one place the
// schema names (unknown property, wrong enum value, blank text, bad URL, wrong type, missing
// required property, too few items). An independent Ajv oracle over the same schema confirms
// that every valid body is valid and every near-valid body is not.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { contractDocument } from '../../support/contract-validator.ts';
import { arbitraryFor, deref, resolvePointer, type ConvertOptions, type Schema } from './schema-arbitrary.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const document = contractDocument as Schema;

const operation = resolvePointer(document, '#/paths/~1v1~1evidence~1reports/post');
const requestSchema = ((operation.requestBody as Schema).content as Record<string, { schema: Schema }>)['application/json']?.schema;
if (requestSchema === undefined) throw new Error('createEvidenceReport has no application/json request body');
/** Where the request body schema lives, e.g. #/components/schemas/CreateEvidenceReportRequest. */
export const REQUEST_POINTER = deref(document, requestSchema, '#/paths/~1v1~1evidence~1reports/post/requestBody').pointer;

/**
 * `format: uri` as the contract describes EvidenceImage.url: parsed as the WHATWG URL Standard
 * does (surrounding C0 controls and spaces ignored, scheme case-insensitive), absolute, http or
 * https, with a host.
 */
export function isContractUri(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const ajv = new Ajv({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addFormat('uri', { type: 'string', validate: isContractUri });
ajv.addSchema(document, 'contract');
const validators = new Map<string, ValidateFunction>();

function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `contract${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** The oracle: is this body valid under the contract's request schema? */
export function isValidRequestBody(body: unknown): boolean {
  return validatorAt(REQUEST_POINTER)(body) === true;
}

// Characters that make text interesting: whitespace of every kind, NUL and other controls,
// non-BMP and combining characters, quotes and backslashes.
const SPECIAL = [' ', '\t', '\n', '\r', '\u0000', '\u0007', '\u007f', '\u00a0', '\u2028', '\u200b', '\ufeff', '"', '\\', '/', '\u0301', '😀', '\ud800'];
const UNIT = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL) },
);

const C0_OR_SPACE = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u0000', '\u001f'), maxLength: 3 });
const URL_ARBITRARY = fc
  .tuple(
    C0_OR_SPACE,
    fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }),
    fc.boolean(),
    C0_OR_SPACE,
  )
  .map(([before, url, shout, after]) => {
    const [scheme = '', rest = ''] = url.split(/:(.*)/s);
    return `${before}${shout ? scheme.toUpperCase() : scheme}:${rest}${after}`;
  });

export const CONVERT_OPTIONS: ConvertOptions = {
  maxLength: 120,
  maxItems: 10,
  unit: UNIT,
  formats: { uri: URL_ARBITRARY },
  formatChecks: { uri: isContractUri },
};

/** Bodies valid under the contract, in every shape its schema allows. */
export const validBody: fc.Arbitrary<Record<string, unknown>> = arbitraryFor(document, { $ref: REQUEST_POINTER }, REQUEST_POINTER, CONVERT_OPTIONS) as fc.Arbitrary<
  Record<string, unknown>
>;

// ---- near-valid bodies -------------------------------------------------------------------

type Path = (string | number)[];

export interface NearValid {
  rule: string;
  pointer: string;
  body: unknown;
}

interface Site {
  path: Path;
  node: Schema;
}

/** Every place in `value` with the schema that governs it (anyOf: the branch that accepts it). */
function sitesOf(value: unknown, schema: Schema, pointer: string, path: Path, out: Site[]): Site[] {
  const { schema: node, pointer: at } = deref(document, schema, pointer);
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf as Schema[];
    const index = branches.findIndex((_, i) => validatorAt(`${at}/anyOf/${i}`)(value) === true);
    out.push({ path, node });
    if (index >= 0) sitesOf(value, branches[index] as Schema, `${at}/anyOf/${index}`, path, out);
    return out;
  }
  out.push({ path, node });
  if (node.type === 'object' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const properties = (node.properties ?? {}) as Record<string, Schema>;
    for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
      const childSchema = properties[name];
      if (childSchema !== undefined) sitesOf(child, childSchema, `${at}/properties/${name}`, [...path, name], out);
    }
  }
  if (node.type === 'array' && Array.isArray(value)) {
    value.forEach((item, i) => sitesOf(item, node.items as Schema, `${at}/items`, [...path, i], out));
  }
  return out;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typesOf(node: Schema): Set<string> {
  if (typeof node.type === 'string') return new Set(node.type === 'number' ? ['number', 'integer'] : [node.type]);
  if (Array.isArray(node.anyOf)) {
    return new Set((node.anyOf as Schema[]).flatMap((branch) => [...typesOf(deref(document, branch, '').schema)]));
  }
  return new Set(Array.isArray(node.enum) ? (node.enum as unknown[]).map(jsonType) : []);
}

function replaceAt(body: unknown, path: Path, update: (parent: Record<string | number, unknown>, key: string | number) => void): unknown {
  if (path.length === 0) {
    const holder: Record<string, unknown> = { root: structuredClone(body) };
    update(holder, 'root');
    return holder.root;
  }
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  update(parent, path[path.length - 1] as string | number);
  return copy;
}

const pointerOf = (path: Path) => path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

const ANY_JSON = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);
const BLANKS = fc.constantFrom('', ' ', '   ', '\t', '\n', '\r\n ', '\u00a0', '\u2003', '\u3000', '\ufeff');
const BAD_URLS = fc.oneof(
  fc.constantFrom(
    '',
    'not a url',
    'ftp://images.example.org/a.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:image/png;base64,iVBORw0KGgo=',
    '//images.example.org/a.png',
    '/relative/a.png',
    'https//images.example.org/a.png',
    'http://',
    'https://exa mple.org/a.png',
    'http://[::1/a.png',
    'http://256.256.256.256.256/',
    '\u00a0https://images.example.org/a.png',
    'https://%zz/',
  ),
  fc.tuple(fc.constantFrom('ftp', 'ws', 'file', 'gopher', 'mailto', 'htp', 'httpss'), fc.webUrl()).map(([scheme, url]) => url.replace(/^[a-z]+/, scheme)),
);

function mutationsAt(body: unknown, site: Site, out: Map<string, fc.Arbitrary<NearValid>[]>): void {
  const { path, node } = site;
  const pointer = pointerOf(path);
  const add = (rule: string, arbitrary: fc.Arbitrary<NearValid>) => out.set(rule, [...(out.get(rule) ?? []), arbitrary]);
  const set = (rule: string, replacement: fc.Arbitrary<unknown>) =>
    add(rule, replacement.map((value) => ({ rule, pointer, body: replaceAt(body, path, (parent, key) => (parent[key] = value)) })));
  const types = typesOf(node);
  if (types.size > 0) set('type', ANY_JSON.filter((value) => !types.has(jsonType(value))));
  if (node.type === 'object' && node.additionalProperties === false) {
    const known = Object.keys((node.properties ?? {}) as object);
    const name = fc.string({ minLength: 1, maxLength: 12 }).filter((n) => !known.includes(n) && n !== '__proto__');
    add(
      'additionalProperties',
      fc.tuple(name, fc.jsonValue({ maxDepth: 1 })).map(([key, value]) => ({
        rule: 'additionalProperties',
        pointer: `${pointer}/${key}`,
        body: replaceAt(body, path, (parent, k) => ((parent[k] as Record<string, unknown>)[key] = value)),
      })),
    );
  }
  if (node.type === 'object') {
    const here = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], body) as Record<string, unknown>;
    for (const name of ((node.required ?? []) as string[]).filter((n) => n in here)) {
      add('required', fc.constant({ rule: 'required', pointer: `${pointer}/${name}`, body: replaceAt(body, path, (parent, k) => delete (parent[k] as Record<string, unknown>)[name]) }));
    }
  }
  if (Array.isArray(node.enum)) {
    const allowed = node.enum as unknown[];
    const nearMiss = fc.constantFrom(...allowed.map(String)).chain((v) => fc.constantFrom(v.toUpperCase(), ` ${v}`, `${v} `, v.replace(/_/g, '-'), `${v}s`));
    set('enum', fc.oneof(nearMiss, fc.string({ maxLength: 20 })).filter((v) => !allowed.includes(v)));
  }
  if (node.type === 'string' && (node.pattern !== undefined || node.minLength !== undefined) && node.format === undefined) set('blank', BLANKS);
  if (node.format === 'uri') set('format', BAD_URLS);
  if (node.type === 'array' && typeof node.minItems === 'number' && node.minItems > 0) set('minItems', fc.constant([]));
}

/** Bodies that break exactly one rule of the contract at one place; the oracle confirms it. */
export const nearValidBody: fc.Arbitrary<NearValid> = validBody
  .chain((body) => {
    // Rules first, then places: every kind of break is equally likely, whatever the body's size.
    const byRule = new Map<string, fc.Arbitrary<NearValid>[]>();
    for (const site of sitesOf(body, { $ref: REQUEST_POINTER }, REQUEST_POINTER, [], [])) mutationsAt(body, site, byRule);
    return fc.oneof(...[...byRule.values()].map((places) => fc.oneof(...places)));
  })
  .filter((candidate) => !isValidRequestBody(candidate.body));
