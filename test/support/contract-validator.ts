// An independent check that every response the suite sees matches the published contract
// It does not reuse the server's openapi-backend validator: Ajv compiles the contract's
// schemas directly, and the response objects are resolved here by hand.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, unknown>;

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export const contractDocument = parse(readFileSync(new URL('../../contract/openapi.yaml', import.meta.url), 'utf8')) as Json;

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(contractDocument, 'contract');
const compiled = new Map<string, ValidateFunction>();

function validatorFor(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: `contract${ref}` });
    compiled.set(ref, validate);
  }
  return validate;
}

/** Follows `$ref`s (JSON pointers into the contract) to the node they name. */
export function resolve(node: unknown): Json {
  let current = node as Json;
  while (typeof current?.$ref === 'string') {
    const pointer = (current.$ref as string).slice(2).split('/');
    current = pointer.reduce<Json>((acc, token) => acc[token.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, contractDocument);
  }
  return current;
}

/** The codes an error response's schema allows: error.code's enum, through a oneOf of error bodies (429). */
export function errorCodesOf(schema: Json): string[] {
  const bodyCodes = (body: Json): string[] => {
    const resolved = resolve(body);
    if (Array.isArray(resolved.oneOf)) return (resolved.oneOf as Json[]).flatMap(bodyCodes);
    return ((resolved.properties as Record<string, Json>).code as Json).enum as string[];
  };
  return bodyCodes((resolve(schema).properties as Record<string, Json>).error as Json);
}

/** The contract's paths as patterns: a template's `{id}` matches one non-empty segment. */
const pathPatterns = Object.keys(contractDocument.paths as Json).map((template) => {
  const segments = template.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return { template, pattern: new RegExp(`^${segments.join('/')}$`) };
});

function operationOf(method: string, path: string): Json | undefined {
  const paths = contractDocument.paths as Record<string, Json>;
  const template = paths[path] ? path : pathPatterns.find(({ pattern }) => pattern.test(path))?.template;
  return template === undefined ? undefined : (paths[template]?.[method.toLowerCase()] as Json | undefined);
}

/** Plain routes outside the API contract (operator-interface.md "Health and operations"). */
const SYSTEM_PATHS = new Set(['/healthz', '/readyz', '/openapi.yaml', '/openapi.json']);

/**
 * Headers no contract declares: HTTP's own, and those Prism (the conformance tests' validating
 * proxy, test/contract/conformance) adds to the answers it passes on.
 */
const HTTP_FRAMING_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'sl-violations']);
const undeclaredAllowed = (name: string): boolean => HTTP_FRAMING_HEADERS.has(name) || name.startsWith('access-control-');

/** Violations of one response; empty when it conforms. */
export function contractViolations(response: ObservedResponse): string[] {
  const problems: string[] = [];
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const requestId = header('x-request-id');
  if (!requestId) problems.push('missing x-request-id (R9)');
  if (header('cache-control') !== 'no-store') problems.push('cache-control is not no-store (R9)');
  // A HEAD answer has no body (RFC 9110 9.3.2): its headers are all there is to check.
  if (response.method === 'HEAD') return problems;
  const isError = response.status >= 400;
  // A GET of a plain route answers outside the contract (readyz 503 has no code); any other
  // method there is a 405 in the envelope like everywhere else.
  const systemRoute = SYSTEM_PATHS.has(response.path.split('?')[0] ?? '') && ['GET', 'HEAD'].includes(response.method);
  if (isError && !systemRoute) {
    const error = (response.body as { error?: { requestId?: unknown } } | undefined)?.error;
    if (error?.requestId !== requestId) problems.push('error.requestId differs from x-request-id (R9)');
  }
  const operation = operationOf(response.method, response.path.split('?')[0] ?? '');
  let schemaRef: string;
  if (operation) {
    const responses = operation.responses as Record<string, unknown>;
    const documented = responses[String(response.status)];
    if (!documented) return [...problems, `status ${response.status} is not documented for ${response.method} ${response.path}`];
    const resolved = resolve(documented);
    const content = (resolved.content as Record<string, { schema: Json }> | undefined)?.['application/json'];
    if (!content) return [...problems, 'no JSON content documented'];
    schemaRef = String(content.schema.$ref).slice(1);
    const headers = (resolved.headers ?? {}) as Record<string, unknown>;
    // A header the service adds must be declared where it is sent, or generated SDKs cannot
    // read it and gateways that pass declared headers only drop it (R53's ers-mode, for one).
    const declared = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    for (const name of Object.keys(response.headers)) {
      if (!undeclaredAllowed(name.toLowerCase()) && !declared.has(name.toLowerCase())) {
        problems.push(`header ${name} is sent but not declared on ${response.status}`);
      }
    }
    for (const [name, spec] of Object.entries(headers)) {
      const headerSpec = resolve(spec);
      const value = header(name.toLowerCase());
      if (headerSpec.required === true && value === undefined) problems.push(`missing required header ${name}`);
      if (value !== undefined) {
        const schema = headerSpec.schema as Json;
        const candidate = schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
        const validate = ajv.compile(schema);
        if (!validate(candidate)) problems.push(`header ${name}=${value} breaks its schema`);
      }
    }
  } else if (systemRoute) {
    return problems;
  } else if (isError) {
    schemaRef = '/components/schemas/Error';
  } else {
    return problems;
  }
  const validate = validatorFor(`#${schemaRef}`);
  if (!validate(response.body)) {
    problems.push(...(validate.errors ?? []).map((e) => `body ${e.instancePath || '/'} ${e.message ?? ''}`));
  }
  return problems;
}

/** Every violation seen during the run; the root hook fails the test that caused one. */
export const observedViolations: { response: ObservedResponse; problems: string[] }[] = [];

export function recordResponse(response: ObservedResponse): void {
  const problems = contractViolations(response);
  if (problems.length > 0) observedViolations.push({ response, problems });
}
