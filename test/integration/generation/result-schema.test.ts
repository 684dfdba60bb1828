// Ruling R24: the generator's candidate is rebuilt field by field and checked against the
// contract's ReportResult; what the contract cannot represent is GenerationError('invalid').
import { expect } from 'chai';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { RESULT_FIELDS, createResultValidator } from '../../../src/generation/result-schema.ts';
import type { ResultValidator } from '../../../src/generation/result-schema.ts';
import { VALID_REPORT } from '../../support/generation/fake-gemini-server.ts';
import { contractDocument } from '../../support/generation/helpers.ts';

function expectInvalid(validator: ResultValidator, candidate: unknown): GenerationError {
  try {
    validator.toReportResult(candidate);
  } catch (error) {
    expect(error).to.be.instanceOf(GenerationError);
    expect((error as GenerationError).kind).to.equal('invalid');
    return error as GenerationError;
  }
  throw new Error('expected GenerationError(invalid)');
}

describe('toReportResult: the contract decides what a generated result may be (R24)', () => {
  let validator: ResultValidator;
  before(async () => {
    validator = createResultValidator(await contractDocument());
  });

  it('accepts a report with all eight fields and returns exactly those fields (R24)', () => {
    const result = validator.toReportResult({ ...VALID_REPORT });
    expect(result).to.deep.equal(VALID_REPORT);
    expect(Object.keys(result)).to.have.members([...RESULT_FIELDS]);
  });

  it('drops extra fields, at the top level, so they are never stored or exposed (R24)', () => {
    // As JSON.parse builds it: "__proto__" arrives as an own key.
    const candidate: unknown = JSON.parse(
      JSON.stringify({ ...VALID_REPORT, internalNotes: 'leak me', model: 'x' }).replace('{', '{"__proto__":{"polluted":true},'),
    );
    const result = validator.toReportResult(candidate);
    expect(Object.keys(result)).to.have.members([...RESULT_FIELDS]);
    expect(JSON.stringify(result)).not.to.contain('leak me');
  });

  it('accepts suggestedNextStep null and confidence at both bounds (spec 2.3)', () => {
    for (const confidence of [0, 1]) {
      expect(validator.toReportResult({ ...VALID_REPORT, suggestedNextStep: null, confidence }).confidence).to.equal(confidence);
    }
  });

  it('shares no array with the candidate (the result cannot change behind the pipeline\'s back) (R24)', () => {
    const candidate = { ...VALID_REPORT, tags: ['a'], riskFlags: ['b'] };
    const result = validator.toReportResult(candidate);
    candidate.tags.push('late');
    expect(result.tags).to.deep.equal(['a']);
  });

  const cases: [string, unknown][] = [
    ['an unknown category', { ...VALID_REPORT, category: 'hvac' }],
    ['an unknown priority', { ...VALID_REPORT, priority: 'critical' }],
    ['confidence 1.5', { ...VALID_REPORT, confidence: 1.5 }],
    ['confidence -0.1', { ...VALID_REPORT, confidence: -0.1 }],
    ['confidence as a string', { ...VALID_REPORT, confidence: '0.8' }],
    ['confidence NaN', { ...VALID_REPORT, confidence: Number.NaN }],
    ['an empty title', { ...VALID_REPORT, title: '' }],
    ['a numeric description', { ...VALID_REPORT, description: 42 }],
    ['tags that are not strings', { ...VALID_REPORT, tags: [1, 2] }],
    ['riskFlags as a string', { ...VALID_REPORT, riskFlags: 'water_damage' }],
    ['suggestedNextStep as a number', { ...VALID_REPORT, suggestedNextStep: 3 }],
    ['a JSON array', [VALID_REPORT]],
    ['a JSON string', 'plumbing'],
    ['null', null],
    ['a number', 7],
  ];
  for (const [what, candidate] of cases) {
    it(`rejects ${what} as invalid (R24: 502 invalid_generated_report)`, () => {
      expectInvalid(validator, candidate);
    });
  }

  for (const field of RESULT_FIELDS) {
    it(`rejects a result missing ${field} as invalid (R24: all eight fields always present)`, () => {
      const candidate: Record<string, unknown> = { ...VALID_REPORT };
      delete candidate[field];
      expectInvalid(validator, candidate);
    });
  }

  it('names where the result breaks the contract, never the offending value (R24, spec 2.4)', () => {
    const error = expectInvalid(validator, { ...VALID_REPORT, category: 'secret-category-value' });
    expect(error.reason).to.contain('/category');
    expect(error.message).not.to.contain('secret-category-value');
  });
});
