// R0, R24: Gemini's response schema is derived from the contract's ReportResult; these tests
// fail if the two drift (field names, required list, enums, types, nullability, bounds).
import { expect } from 'chai';
import { geminiResponseSchema } from '../../../src/generation/create-report-generator.ts';
import { deriveGeminiResponseSchema } from '../../../src/generation/gemini-schema.ts';
import type { GeminiSchema } from '../../../src/generation/gemini-schema.ts';
import { resolveReportResultSchema } from '../../../src/generation/result-schema.ts';
import type { ContractDocument, JsonSchema } from '../../../src/generation/result-schema.ts';
import { contractDocument } from '../../support/generation/helpers.ts';

type ContractProperty = { type: string; enum?: string[]; nullable?: boolean; minimum?: number; maximum?: number; items?: { type: string } };

describe('Gemini response schema = the contract\'s ReportResult (R0, R24)', () => {
  let document: ContractDocument;
  let contract: { required: string[]; properties: Record<string, ContractProperty> };
  let derived: GeminiSchema;
  before(async () => {
    document = await contractDocument();
    contract = resolveReportResultSchema(document) as unknown as typeof contract;
    derived = geminiResponseSchema(document);
  });

  it('asks for an object with the contract\'s property names, in order, all required (R0)', () => {
    expect(derived.type).to.equal('OBJECT');
    expect(Object.keys(derived.properties ?? {})).to.deep.equal(Object.keys(contract.properties));
    expect(derived.propertyOrdering).to.deep.equal(Object.keys(contract.properties));
    expect(derived.required).to.deep.equal(contract.required);
    expect(derived.required).to.have.lengthOf(8);
  });

  it('carries every enum value of category and priority, and nothing else (spec 2.3)', () => {
    expect(derived.properties?.['category']?.enum).to.deep.equal(contract.properties['category']?.enum);
    expect(derived.properties?.['priority']?.enum).to.deep.equal(contract.properties['priority']?.enum);
    expect(derived.properties?.['category']?.enum).to.include.members(['plumbing', 'elevator', 'other']);
  });

  it('keeps each property\'s type, nullability, item type and bounds (R0)', () => {
    for (const [name, property] of Object.entries(contract.properties)) {
      const gemini = derived.properties?.[name];
      expect(gemini?.type, name).to.equal(property.type.toUpperCase());
      expect(gemini?.nullable ?? false, name).to.equal(property.nullable ?? false);
      expect(gemini?.minimum, name).to.equal(property.minimum);
      expect(gemini?.maximum, name).to.equal(property.maximum);
      expect(gemini?.items?.type, name).to.equal(property.items?.type.toUpperCase());
    }
    expect(derived.properties?.['suggestedNextStep']?.nullable).to.equal(true);
    expect(derived.properties?.['confidence']).to.include({ minimum: 0, maximum: 1 });
  });

  it('sends no keyword Gemini rejects (additionalProperties, $ref, lower-case types) (R0)', () => {
    const text = JSON.stringify(derived);
    expect(text).not.to.contain('additionalProperties');
    expect(text).not.to.contain('$ref');
    expect(text).not.to.match(/"type":"[a-z]/);
  });

  it('refuses a contract keyword it cannot express instead of dropping it silently (R0)', () => {
    const schema: JsonSchema = { type: 'object', properties: { a: { type: 'string', oneOf: [] } } };
    expect(() => deriveGeminiResponseSchema(schema)).to.throw(/ReportResult\.a .*oneOf/);
    expect(() => deriveGeminiResponseSchema({ type: 'null' })).to.throw(/type/);
  });
});
