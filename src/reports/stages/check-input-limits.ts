// Step 2, last part: the application limits the specification keeps unpublished (ruling R7),
// checked after the HTTP schema: 422 invalid_evidence_report_input.
import { ApiError } from '../../errors/catalogue.ts';
import type { CreateEvidenceReportRequest } from '../report-request.ts';

export interface InputLimits {
  readonly textMaxChars: number;
  readonly imageMaxCount: number;
  readonly urlMaxChars: number;
  readonly languageMaxChars: number;
}

const length = (s: string): number => [...s].length;

function violation(pointer: string, rule: string): ApiError {
  return new ApiError('invalid_evidence_report_input', { details: { pointer, rule } });
}

export function checkInputLimits(limits: InputLimits, request: CreateEvidenceReportRequest): void {
  const { text, images = [] } = request.evidence;
  if (text !== undefined && length(text) > limits.textMaxChars) throw violation('/evidence/text', 'maxLength');
  if (images.length > limits.imageMaxCount) throw violation('/evidence/images', 'maxItems');
  images.forEach((image, index) => {
    if (length(image.url) > limits.urlMaxChars) throw violation(`/evidence/images/${index}/url`, 'maxLength');
  });
  if (request.language !== undefined && length(request.language) > limits.languageMaxChars) {
    throw violation('/language', 'maxLength');
  }
}
