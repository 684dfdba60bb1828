// The request and answer types of report creation, from the contract (generated/).
import type { components } from '../../generated/openapi.d.ts';

export type CreateEvidenceReportRequest = components['schemas']['CreateEvidenceReportRequest'];
export type EvidenceReportBody = components['schemas']['EvidenceReport'];
