// R43: generation settings follow the model family. thinkingLevel is Gemini 3's; a Gemini 2.5
// (or older) model is sent none, whichever way GEMINI_MODEL names it.
import { expect } from 'chai';
import { takesThinkingLevel } from '../../../src/generation/gemini-generator.ts';
import { modelId } from '../../../src/generation/model-id.ts';

describe('model families (R43)', () => {
  for (const [model, id] of [
    ['gemini-3.8-flash', 'gemini-3.8-flash'],
    ['models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['publishers/google/models/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['Gemini-2.5-Flash', 'gemini-2.5-flash'],
  ] as const) {
    it(`${model} is ${id}`, () => expect(modelId(model)).to.equal(id));
  }

  for (const [model, takes] of [
    ['gemini-3.8-flash', true],
    ['gemini-3.1-flash-lite', true],
    ['models/gemini-3.7-flash', true],
    ['gemini-2.5-flash', false],
    ['models/gemini-2.5-flash-lite', false],
    ['publishers/google/models/gemini-2.5-pro', false],
    ['GEMINI-2.5-FLASH', false],
    ['gemini-2.0-flash', false],
    ['gemini-1.5-pro', false],
  ] as const) {
    it(`${model} ${takes ? 'takes' : 'gets no'} thinkingLevel`, () => expect(takesThinkingLevel(model)).to.equal(takes));
  }
});
