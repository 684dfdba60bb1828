// The `details` of 400 invalid_request_payload: the first violation, as primitives only
// (ruling R8), e.g. {"pointer": "/evidence/images/0/url", "rule": "format"}.
import type { ErrorObject } from 'ajv';
import type { ErrorDetails } from '../errors/catalogue.ts';

const COMPOSITE = new Set(['anyOf', 'oneOf', 'allOf', 'not', 'if']);

function pointerOf(error: ErrorObject): string {
  // openapi-backend validates { requestBody, header, query, ... }: report body pointers only.
  const path = error.instancePath.replace(/^\/requestBody/, '');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${path}/${escape(params.additionalProperty)}`;
  }
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return `${path}/${escape(params.missingProperty)}`;
  }
  return path;
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Picks the violation a client can act on. Ajv reports the branches of `anyOf` (text evidence
 * or image evidence) separately, then the composite failure: prefer the deepest concrete error,
 * so `{"evidence": {"text": " "}}` names /evidence/text, not the composite.
 */
export function firstViolation(errors: readonly ErrorObject[]): ErrorDetails {
  const concrete = errors.filter((e) => !COMPOSITE.has(e.keyword));
  const candidates = concrete.length > 0 ? concrete : errors;
  let best = candidates[0];
  for (const error of candidates) {
    if (best === undefined || depth(error) > depth(best)) best = error;
  }
  if (best === undefined) return { pointer: '', rule: 'schema' };
  return { pointer: pointerOf(best), rule: best.keyword };
}

function depth(error: ErrorObject): number {
  return pointerOf(error).split('/').length;
}
