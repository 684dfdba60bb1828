// The request every POST scenario sends, shared by the service, the baseline and the ceiling
// (whose fixed answer is the offline report for it, so all three answer bodies of one size).
import { deriveOfflineReport } from '../../src/generation/offline-generator.ts';

export const REPORTS_PATH = '/v1/evidence/reports';
export const USAGE_PATH = '/v1/usage/current';

export const TEXT_REQUEST = {
  context: 'property_maintenance',
  language: 'en',
  evidence: { text: 'Water is dripping from the ceiling of the second-floor hallway near the elevator.' },
} as const;

export function imageRequest(urls: readonly string[]) {
  return {
    context: 'damage_report',
    evidence: { text: 'Cracked glass on the front door after the storm.', images: urls.map((url) => ({ url })) },
  };
}

/** A 201 body shaped like the service's (spec 2.2) for the text request. */
export function sampleReportBody(id: string): string {
  const { context, language, evidence } = TEXT_REQUEST;
  const result = deriveOfflineReport({ context, language, text: evidence.text, images: [] });
  return JSON.stringify({ id, status: 'completed', result, usage: { operation: 'evidence_report', units: 1 } });
}
