// Ruling R25: the offline generator is deterministic, network-free and derives a plausible
// report from the evidence text, the context and the image metadata.
import { expect } from 'chai';
import { OfflineReportGenerator, deriveOfflineReport } from '../../../src/generation/offline-generator.ts';
import type { GenerationInput } from '../../../src/generation/report-generator.ts';
import { createResultValidator } from '../../../src/generation/result-schema.ts';
import type { ResultValidator } from '../../../src/generation/result-schema.ts';
import { JPEG_BYTES, PNG_BYTES, contractDocument, image, input } from '../../support/generation/helpers.ts';

describe('offline generator: deterministic and plausible (R25)', () => {
  let validator: ResultValidator;
  before(async () => {
    validator = createResultValidator(await contractDocument());
  });

  it('gives the same report and token estimates for the same input, as model offline (R25, R42, R43)', async () => {
    const generator = new OfflineReportGenerator();
    const given = input({ images: [image('image/png', PNG_BYTES)] });
    const first = await generator.generate(given);
    const second = await new OfflineReportGenerator().generate(given);
    expect(second.candidate).to.deep.equal(first.candidate);
    expect(first).to.include({ generator: 'offline', model: 'offline', tokenUsage: null });
    expect(second.tokens).to.deep.equal(first.tokens);
    expect(first.tokens.input).to.be.greaterThan(10);
    expect(first.tokens.output).to.equal(Math.ceil(JSON.stringify(first.candidate).length / 4));
    expect(first.tokens.thinking).to.equal(0);
  });

  const cases: [string, ReturnType<typeof deriveOfflineReport>['category'], string][] = [
    ['Water is leaking from the pipe under the sink', 'plumbing', 'leak'],
    ['The outlet in room 4 gives off sparks when the power comes on', 'electrical', 'outlet'],
    ['The lift has been out of order since Monday', 'elevator', 'lift'],
    ['Long crack in the wall next to the support beam', 'structural', 'crack'],
    ['Broken window at the back door and the lock is forced', 'security', 'broken_window'],
    ['Coffee spill and a large stain on the lobby carpet', 'cleaning', 'stain'],
    ['The dishwasher in unit 2 stops mid-cycle and the oven will not heat', 'appliance', 'dishwasher'],
    ['Quarterly visit, nothing to note', 'other', 'property_maintenance'],
  ];
  for (const [text, category, tag] of cases) {
    it(`suggests ${category} for "${text}" and tags it ${tag} (R25 keyword rules)`, () => {
      const report = deriveOfflineReport(input({ text }));
      expect(report.category).to.equal(category);
      expect(report.tags).to.include(tag);
      expect(validator.toReportResult(report)).to.deep.equal(report);
    });
  }

  it('makes danger words urgent and flags them (R25)', () => {
    const report = deriveOfflineReport(input({ text: 'Sparks and smoke coming from the outlet, tenants evacuated' }));
    expect(report.priority).to.equal('urgent');
    expect(report.riskFlags).to.include('urgent_keywords');
    expect(report.suggestedNextStep).to.match(/^Treat as urgent/);
  });

  it('ranks leaks high and cosmetic scuffs low (R25)', () => {
    expect(deriveOfflineReport(input({ text: 'Small leak at the tap' })).priority).to.equal('high');
    expect(deriveOfflineReport(input({ text: 'Minor cosmetic scuff on the hallway wall' })).priority).to.equal('low');
  });

  it('reports image-only evidence from the image metadata and flags what it could not see (R25)', () => {
    const images = [image('image/png', PNG_BYTES), image('image/jpeg', JPEG_BYTES)];
    const report = deriveOfflineReport(input({ text: undefined, images, context: 'damage_report' }));
    expect(report.riskFlags).to.include.members(['no_text_evidence', 'image_only_evidence', 'image_content_not_analysed']);
    expect(report.title).to.contain('2 images');
    expect(report.description).to.contain('image/png, image/jpeg');
    expect(report.tags).to.include.members(['damage_report', 'image_evidence']);
    expect(validator.toReportResult(report)).to.deep.equal(report);
  });

  it('grows confidence with the evidence, within [0, 1] (spec 2.3)', () => {
    const thin: GenerationInput = input({ text: 'Leak' });
    const rich = input({
      text: 'Water is leaking from the pipe under the kitchen sink; the drain is clogged and the cabinet floor is soaked through. '.repeat(3),
      images: [image('image/png', PNG_BYTES), image('image/png', PNG_BYTES)],
    });
    const low = deriveOfflineReport(thin).confidence;
    const high = deriveOfflineReport(rich).confidence;
    expect(high).to.be.greaterThan(low);
    for (const value of [low, high]) expect(value).to.be.within(0, 1);
  });

  it('says so when it cannot follow non-English language guidance (it writes English only) (R25)', () => {
    expect(deriveOfflineReport(input({ language: 'de-DE' })).riskFlags).to.include('language_not_applied');
    expect(deriveOfflineReport(input({ language: 'en-GB' })).riskFlags).not.to.include('language_not_applied');
  });
});
