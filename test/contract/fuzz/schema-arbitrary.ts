// A small converter from the JSON schemas of an OpenAPI 3.0 document to fast-check
// arbitraries (derived from the contract, not hand-copied, so they follow it). It knows the
// keywords the request schemas use: $ref, type, enum, properties, required,
// additionalProperties, minLength, maxLength, pattern, format, items, minItems, maxItems,
// anyOf, minimum, maximum, nullable. Any other keyword throws, so a contract change that the
// converter would silently ignore fails the fuzz instead.
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

const KNOWN = new Set([
  '$ref', 'type', 'enum', 'properties', 'required', 'additionalProperties', 'minLength', 'maxLength', 'pattern', 'format',
  'items', 'minItems', 'maxItems', 'anyOf', 'minimum', 'maximum', 'nullable', 'description', 'example', 'examples', 'title',
]);

export interface ConvertOptions {
  /** Length cap for strings without maxLength (keeps most values under unpublished limits). */
  readonly maxLength: number;
  /** Size cap for arrays without maxItems. */
  readonly maxItems: number;
  /** Characters strings are built from. */
  readonly unit: fc.Arbitrary<string>;
  /** Generators for `format` values; each value is still filtered by pattern and lengths. */
  readonly formats: Readonly<Record<string, fc.Arbitrary<string>>>;
  /** The meaning of each `format`, as the contract states it. */
  readonly formatChecks: Readonly<Record<string, (value: string) => boolean>>;
}

/** Resolves a local `#/...` pointer in the document. */
export function resolvePointer(document: Schema, pointer: string): Schema {
  const tokens = pointer.replace(/^#\/?/, '').split('/').filter((t) => t !== '');
  let node: unknown = document;
  for (const token of tokens) {
    node = (node as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`unresolvable pointer ${pointer}`);
  }
  return node as Schema;
}

/** Follows $ref chains; returns the schema and the pointer it lives at. */
export function deref(document: Schema, schema: Schema, pointer: string): { schema: Schema; pointer: string } {
  let current = schema;
  let at = pointer;
  while (typeof current.$ref === 'string') {
    at = current.$ref;
    current = resolvePointer(document, at);
  }
  return { schema: current, pointer: at };
}

function codePoints(value: string): number {
  return [...value].length;
}

function stringArbitrary(schema: Schema, options: ConvertOptions): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? Math.max(options.maxLength, minLength);
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  const format = schema.format as string | undefined;
  const fits = (value: string) =>
    codePoints(value) >= minLength &&
    codePoints(value) <= maxLength &&
    (pattern === undefined || pattern.test(value)) &&
    (format === undefined || (options.formatChecks[format]?.(value) ?? false));
  let base: fc.Arbitrary<string>;
  if (format !== undefined) {
    const generator = options.formats[format];
    if (generator === undefined) throw new Error(`no generator for format "${format}"`);
    base = generator;
  } else if (pattern !== undefined) {
    // Rich text that happens to match, and text built to match (fast-check's regex generator).
    base = fc.oneof(fc.string({ unit: options.unit, minLength, maxLength }), fc.stringMatching(pattern));
  } else {
    base = fc.string({ unit: options.unit, minLength, maxLength });
  }
  return base.filter(fits);
}

/** An arbitrary of values valid under `schema` (found at `pointer` in `document`). */
export function arbitraryFor(document: Schema, schema: Schema, pointer: string, options: ConvertOptions): fc.Arbitrary<unknown> {
  const resolved = deref(document, schema, pointer);
  const node = resolved.schema;
  const at = resolved.pointer;
  for (const keyword of Object.keys(node)) {
    if (!KNOWN.has(keyword)) throw new Error(`schema-arbitrary: keyword "${keyword}" at ${at} is not supported`);
  }
  const arbitrary = arbitraryForNode(document, node, at, options);
  return node.nullable === true ? fc.option(arbitrary, { nil: null }) : arbitrary;
}

function arbitraryForNode(document: Schema, node: Schema, at: string, options: ConvertOptions): fc.Arbitrary<unknown> {
  if (Array.isArray(node.anyOf)) {
    return fc.oneof(...(node.anyOf as Schema[]).map((branch, i) => arbitraryFor(document, branch, `${at}/anyOf/${i}`, options)));
  }
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  switch (node.type) {
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, Schema>;
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, child]) => [name, arbitraryFor(document, child, `${at}/properties/${name}`, options)]),
      );
      if (node.additionalProperties !== false && node.additionalProperties !== undefined) {
        throw new Error(`schema-arbitrary: additionalProperties other than false at ${at} is not supported`);
      }
      return fc.record(model, { requiredKeys: (node.required ?? []) as string[] });
    }
    case 'array': {
      const minLength = (node.minItems as number | undefined) ?? 0;
      const maxLength = (node.maxItems as number | undefined) ?? Math.max(options.maxItems, minLength);
      return fc.array(arbitraryFor(document, node.items as Schema, `${at}/items`, options), { minLength, maxLength });
    }
    case 'string':
      return stringArbitrary(node, options);
    case 'integer':
      return fc.integer({ min: (node.minimum as number | undefined) ?? -1e9, max: (node.maximum as number | undefined) ?? 1e9 });
    case 'number':
      return fc.double({ min: (node.minimum as number | undefined) ?? -1e9, max: (node.maximum as number | undefined) ?? 1e9, noNaN: true });
    case 'boolean':
      return fc.boolean();
    default:
      throw new Error(`schema-arbitrary: type ${String(node.type)} at ${at} is not supported`);
  }
}
