// How the offline generator weighs what the evidence says around a keyword (R25): a denied
// danger, a thing named only as a place, a fault that grows, people at risk, letters that
// accent folding does not split. Sentences here are not taken from the evaluation set.
import { expect } from 'chai';
import { deriveOfflineReport } from '../../../src/generation/offline-generator.ts';
import { foldForMatching } from '../../../src/generation/offline-rules.ts';
import type { GenerationInput } from '../../../src/generation/report-generator.ts';
import { input } from '../../support/generation/helpers.ts';

const report = (text: string, context?: GenerationInput['context']) =>
  deriveOfflineReport(input(context === undefined ? { text } : { text, context }));

describe('offline generator: the words around a keyword (R25)', () => {
  it('does not count a danger the evidence denies, in several languages, but counts it when it is asserted', () => {
    expect(report('Tile fell off the cornice, nobody injured.').priority).not.to.equal('urgent');
    expect(report('Tile fell off the cornice, a passer-by injured.').priority).to.equal('urgent');
    expect(report('Kontrolle der Tiefgarage: keine Risse, keine Feuchtigkeit.').tags).not.to.include('crack');
    expect(report('Contrôle du local : pas de fuite, rien à signaler.').priority).to.equal('low');
  });

  it('keeps a denial inside its clause: "no power and sparks" is still urgent', () => {
    expect(report('No power in the flat and sparks from the socket.').priority).to.equal('urgent');
    expect(report('No power in the flat, sparks from the socket.').priority).to.equal('urgent');
  });

  it('counts a thing named only as where something is at half its weight', () => {
    expect(report('Spilt paint on the carpet next to the elevator.').category).to.equal('cleaning');
    expect(report('The elevator doors close on people.').category).to.equal('elevator');
  });

  it('names a category from symptoms without the thing: a breaker that trips, a car that stops off level', () => {
    expect(report('Keeps tripping whenever the heaters in the office are switched on together.').category).to.equal('electrical');
    expect(report('Car stops 8 cm below the landing on floor 3, the lift engineer has been told.').category).to.equal('elevator');
    expect(report('Yellow patch on the ceiling of the landing, soft to the touch.').category).to.equal('plumbing');
  });

  it('keeps a growing fault out of low, and ranks a fault near children or the elderly high', () => {
    expect(report('Small damp patch above the bath.').priority).to.equal('low');
    expect(report('Small damp patch above the bath, spreading every day.').priority).to.equal('medium');
    expect(report('Broken paving slab outside the flats.').priority).to.equal('high');
    expect(report('Radiator in the day room is cold.').priority).to.equal('medium');
    expect(report('Radiator in the day room of the care home for the elderly is cold.').priority).to.equal('high');
    expect(report('Stock check: 20 boxes of children’s books, all present.', 'inventory_check').priority).to.equal('low');
  });

  it('folds letters NFD leaves whole (ł, ø, æ, œ), so Polish words match', () => {
    expect(foldForMatching('Włamanie, Łódź, Ørsted, Æther, cœur')).to.equal('wlamanie, lodz, orsted, aether, coeur');
    expect(report('Wyłamany zamek w drzwiach do piwnicy.').category).to.equal('security');
  });
});
