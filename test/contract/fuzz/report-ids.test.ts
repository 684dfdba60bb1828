// Hostile input (R54): any id in the path of GET /v1/evidence/reports/{id}. The property and its
// generator are in properties.ts; the general properties every answer must have (no 5xx,
// contract, envelope, nothing stored) in fuzz-target.ts.
import { fuzzSuite } from './fuzz-suite.ts';
import { REPORT_IDS } from './properties.ts';

fuzzSuite(REPORT_IDS);
