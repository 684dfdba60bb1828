// Walks an OpenAPI 3.0 document the way the specification nests it and returns every schema
// object with its JSON pointer: component schemas, parameters, headers, request bodies and
// responses (in components and under every operation), and inside each schema its properties,
// items, additionalProperties, allOf / anyOf / oneOf members and not. $ref nodes are not
// followed: their targets are walked where they are defined (refs must stay in #/components).
// Examples are never walked: an example value is data, not a schema.
type Json = Record<string, unknown>;

export interface SchemaAt {
  pointer: string;
  schema: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const child = (pointer: string, ...keys: (string | number)[]) =>
  keys.reduce<string>((at, key) => `${at}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`, pointer);

export function schemasOf(document: Json): SchemaAt[] {
  const found: SchemaAt[] = [];
  const each = (node: unknown, pointer: string, visit: (value: Json, at: string) => void) => {
    if (isObject(node)) for (const [key, value] of Object.entries(node)) if (isObject(value)) visit(value, child(pointer, key));
  };
  const schema = (node: Json, at: string): void => {
    if (typeof node.$ref === 'string') return;
    found.push({ pointer: at, schema: node });
    each(node.properties, child(at, 'properties'), schema);
    if (isObject(node.items)) schema(node.items, child(at, 'items'));
    if (isObject(node.additionalProperties)) schema(node.additionalProperties, child(at, 'additionalProperties'));
    if (isObject(node.not)) schema(node.not, child(at, 'not'));
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const members = node[keyword];
      if (Array.isArray(members)) members.forEach((member, i) => isObject(member) && schema(member, child(at, keyword, i)));
    }
  };
  const content = (node: Json, at: string) => {
    each(node.content, child(at, 'content'), (media, mediaAt) => {
      if (isObject(media.schema)) schema(media.schema, child(mediaAt, 'schema'));
    });
  };
  const parameter = (node: Json, at: string) => {
    if (isObject(node.schema)) schema(node.schema, child(at, 'schema'));
    content(node, at);
  };
  const response = (node: Json, at: string) => {
    each(node.headers, child(at, 'headers'), parameter);
    content(node, at);
  };
  const parameters = (list: unknown, at: string) => {
    if (Array.isArray(list)) list.forEach((p, i) => isObject(p) && parameter(p, child(at, 'parameters', i)));
  };

  const components = isObject(document.components) ? document.components : {};
  each(components.schemas, '#/components/schemas', schema);
  each(components.parameters, '#/components/parameters', parameter);
  each(components.headers, '#/components/headers', parameter);
  each(components.requestBodies, '#/components/requestBodies', content);
  each(components.responses, '#/components/responses', response);
  each(document.paths, '#/paths', (item, itemAt) => {
    parameters(item.parameters, itemAt);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = child(itemAt, method);
      parameters(operation.parameters, at);
      if (isObject(operation.requestBody)) content(operation.requestBody, child(at, 'requestBody'));
      each(operation.responses, child(at, 'responses'), response);
    }
  });
  return found;
}

/**
 * Ruling R0, "every schema is strict": a schema that declares `properties` must also declare
 * `additionalProperties: false`, and an object schema without `properties` must say what its
 * other properties may be (false, or a schema: a typed map such as ErrorDetails).
 */
export function openSchemas(document: Json): string[] {
  return schemasOf(document)
    .filter(({ schema }) =>
      schema.properties !== undefined
        ? schema.additionalProperties !== false
        : schema.type === 'object' && (schema.additionalProperties === undefined || schema.additionalProperties === true),
    )
    .map(({ pointer }) => pointer);
}

/** Every $ref in the document (examples included), with its pointer. */
export function refsOf(node: unknown, pointer = '#'): { pointer: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((value, i) => refsOf(value, child(pointer, i)));
  if (!isObject(node)) return [];
  const own = typeof node.$ref === 'string' ? [{ pointer, ref: node.$ref }] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => refsOf(value, child(pointer, key)))];
}
