// Every label value of a metric and every attribute value of a span comes from one of these
// closed lists (R40, R41): never a customer, key, report or request identifier, a URL or
// evidence. A value outside its list becomes the list's catch-all.
import { ERROR_CATALOGUE, isApiError } from '../errors/catalogue.ts';
import { GenerationError } from '../generation/report-generator.ts';
import { ImageFetchError, REJECTED_REASONS, UNAVAILABLE_REASONS } from '../images/image-fetch-error.ts';

/** The contract's operationIds; anything else (system routes, 404, 405) is `other`. */
export const OPERATIONS = ['createEvidenceReport', 'getCurrentUsage', 'getEvidenceReport'] as const;
/** The contract paths of the operations, for the server span's name and `http.route`. */
export const ROUTES: Readonly<Record<(typeof OPERATIONS)[number], string>> = {
  createEvidenceReport: '/v1/evidence/reports',
  getCurrentUsage: '/v1/usage/current',
  getEvidenceReport: '/v1/evidence/reports/{id}',
};

export const GENERATION_OUTCOMES = ['ok', 'invalid', 'failed', 'unavailable'] as const;
type ImageOutcomes = readonly ['accepted', 'rejected', 'unavailable'];
/** `none` for accepted images; the boundary's own reasons otherwise (image-fetch-error.ts). */
const IMAGE_REASONS = ['none', ...new Set([...REJECTED_REASONS, ...UNAVAILABLE_REASONS])] as const;

export type Operation = (typeof OPERATIONS)[number] | 'other';
export type GenerationOutcome = (typeof GENERATION_OUTCOMES)[number];
export type ImageOutcome = ImageOutcomes[number];

const operations: ReadonlySet<string> = new Set(OPERATIONS);
const codes: ReadonlySet<string> = new Set(Object.keys(ERROR_CATALOGUE));
const imageReasons: ReadonlySet<string> = new Set(IMAGE_REASONS);

export function operationLabel(operationId: string | undefined): Operation {
  return operationId !== undefined && operations.has(operationId) ? (operationId as Operation) : 'other';
}

/** A catalogue code, or `none` (a success, or nothing the catalogue knows). */
export function codeLabel(code: string | undefined): string {
  return code !== undefined && codes.has(code) ? code : 'none';
}

/** An HTTP status is a closed set by construction: a three-digit number. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other';
}

/** The outcome of a generation that threw: R24's kind, or `failed` for anything else. */
export function generationFailure(error: unknown): Exclude<GenerationOutcome, 'ok'> {
  return error instanceof GenerationError ? error.kind : 'failed';
}

/** Outcome and reason of the image that failed a fetch (the boundary reports the first failure). */
export function imageFailure(error: unknown): { outcome: ImageOutcome; reason: string } {
  if (!(error instanceof ImageFetchError)) return { outcome: 'unavailable', reason: 'unexpected' };
  return { outcome: error.kind, reason: imageReasons.has(error.reason) ? error.reason : 'unexpected' };
}

/**
 * The `error.type` of a failed span: the catalogue code of an API error, the kind of a
 * generation failure, the reason of an image failure, a SQLSTATE, or `_OTHER` (the
 * OpenTelemetry convention for anything else). Never an error message.
 */
export function errorType(error: unknown): string {
  if (isApiError(error)) return error.code;
  if (error instanceof GenerationError) return error.kind;
  if (error instanceof ImageFetchError) return imageFailure(error).reason;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return /^[0-9A-Z]{5}$/.test(code) ? code : '_OTHER';
}
