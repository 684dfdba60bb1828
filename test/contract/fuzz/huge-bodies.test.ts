// Hostile input: the property and its generators are in properties.ts; the general
// properties every answer must have (no 5xx, contract, envelope, nothing stored) in fuzz-target.ts.
import { fuzzSuite } from './fuzz-suite.ts';
import { HUGE_BODIES } from './properties.ts';

fuzzSuite(HUGE_BODIES);
