// The offline generator of ruling R25: the default without GEMINI_API_KEY and a documented mode
// for local use and tests, never a fallback when Gemini fails. Deterministic and network-free:
// the report is derived from the evidence text (weighted keyword rules in offline-rules.ts,
// in six languages and basic Dutch and Polish; a denied symptom does not count), the operational context and the image metadata (count, types, sizes). It cannot
// read image content or translate, and says so in riskFlags rather than pretending. Sentences
// that give the report writer orders (INSTRUCTION_CUES) are set aside, never obeyed (R46).
import { abortableDelay } from './abortable-delay.ts';
import {
  AGGRAVATING_TERMS,
  CATEGORY_LABEL,
  GROWTH_TERMS,
  HIGH_TERMS,
  FAILURE_ONLY_TAGS,
  INSTRUCTION_CUES,
  LOCATION_BEFORE,
  MINOR_FITTING_TERMS,
  LOW_TERMS,
  NEGATION_BEFORE,
  NEXT_STEP,
  RULES,
  SOFTENING_TERMS,
  URGENT_TERMS,
  foldAccents,
  foldForMatching,
} from './offline-rules.ts';
import type { Term } from './offline-rules.ts';
import { NO_OBSERVER } from './report-generator.ts';
import type { GenerationInput, GenerationObserver, GenerationOutput, GenerationTokens, ReportGenerator, ReportResult } from './report-generator.ts';

interface OfflineReportGeneratorOptions {
  /** Bench-only (OFFLINE_GENERATOR_DELAY_MS): wait this long before answering; aborts cut it short. */
  readonly delayMs?: number;
  /** R43: its token estimates are counted as model `offline`. */
  readonly observer?: GenerationObserver;
}

/** The model name the offline generator reports and stores (R42, R43). */
const OFFLINE_MODEL = 'offline';

/**
 * R43: deterministic token estimates, about four characters per token (the rule of thumb of
 * Gemini's token documentation), of what a model would have read (the request data) and written
 * (the report as JSON). The offline generator does not think.
 */
function offlineTokens(input: GenerationInput, report: ReportResult): GenerationTokens {
  const request = JSON.stringify({
    context: input.context,
    outputLanguage: input.language ?? null,
    evidenceText: input.text ?? null,
    images: input.images.map((image) => ({ mimeType: image.mimeType, sizeBytes: image.sizeBytes, width: image.width, height: image.height })),
  });
  return { input: Math.ceil(request.length / 4), output: Math.ceil(JSON.stringify(report).length / 4), thinking: 0 };
}

/** Each term's pattern as a global RegExp, compiled once (matchAll works on a copy of it). */
const GLOBAL_PATTERNS = new WeakMap<Term, RegExp>();

/** Where `term` occurs in `text`: the start of each match and the text before it. */
function* occurrences(term: Term, text: string): Generator<string> {
  // Most terms do not occur at all: one test decides that without building any match.
  if (!term.pattern.test(text)) return;
  let global = GLOBAL_PATTERNS.get(term);
  if (global === undefined) {
    global = new RegExp(term.pattern.source, `${term.pattern.flags.replace('g', '')}g`);
    GLOBAL_PATTERNS.set(term, global);
  }
  for (const match of text.matchAll(global)) yield text.slice(Math.max(0, match.index - 40), match.index);
}

/**
 * What a term counts in `text`: its weight where it occurs as the subject, half where it only
 * says where something is ("marks by the lifts": LOCATION_BEFORE), nothing where a deniable
 * term (a symptom, a danger) is denied ("no leak", "personne n'est blessé": NEGATION_BEFORE) at
 * every occurrence.
 */
function weightIn(term: Term, text: string, deniable = term.deniable === true): number {
  let best = 0;
  for (const before of occurrences(term, text)) {
    if (deniable && NEGATION_BEFORE.test(before)) continue;
    best = Math.max(best, LOCATION_BEFORE.test(before) ? term.weight / 2 : term.weight);
    if (best === term.weight) break;
  }
  return best;
}

/** The tags of the priority terms `text` asserts: a denied danger ("no injuries") does not count. */
const matches = (terms: readonly Term[], text: string): string[] => terms.filter((t) => weightIn(t, text, true) > 0).map((t) => t.tag);

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What classify() found: the category and its tags, and how sure it is. */
interface Classification {
  readonly category: ReportResult['category'];
  readonly tags: string[];
  readonly ambiguous: boolean;
  /** The category's evidence names a machine (weight 1.5) or a symptom, not only things and places. */
  readonly fault: boolean;
}

/** The category whose terms weigh most in `text` (a place counts half, offline-rules.ts; see `weightIn`). */
function classify(text: string): Classification {
  let best: { category: ReportResult['category']; tags: string[]; score: number; fault: boolean } = { category: 'other', tags: [], score: 0, fault: false };
  let ambiguous = false;
  for (const rule of RULES) {
    const weighed = rule.terms.map((t) => ({ term: t, weight: weightIn(t, text) })).filter((t) => t.weight > 0);
    const score = weighed.reduce((sum, t) => sum + t.weight, 0);
    if (score > best.score) {
      const fault = weighed.some((t) => t.term.weight >= 1.5 || t.term.deniable === true);
      best = { category: rule.category, tags: weighed.map((t) => t.term.tag), score, fault };
      ambiguous = false;
    } else if (score > 0 && score === best.score) {
      ambiguous = true; // the earlier (more safety-relevant) rule keeps the tie
    }
  }
  return { category: best.category, tags: best.tags, ambiguous, fault: best.fault };
}

/** The evidence's sentences, split into those that describe and those that give orders. */
function splitInstructions(text: string): { evidence: string; instructions: number } {
  if (text === '') return { evidence: '', instructions: 0 };
  const sentences = text.split(/(?<=[.!?;])\s+/);
  const kept = sentences.filter((sentence) => {
    const folded = foldAccents(sentence);
    return !INSTRUCTION_CUES.some((cue) => cue.test(folded));
  });
  return { evidence: kept.join(' '), instructions: sentences.length - kept.length };
}

/** The report for one input: a pure function, so the same input gives the same report. */
export function deriveOfflineReport(input: GenerationInput): ReportResult {
  const given = (input.text ?? '').replace(/\s+/g, ' ').trim();
  const { evidence: text, instructions } = splitInstructions(given);
  const folded = foldForMatching(text);
  const words = text === '' ? 0 : text.split(' ').length;
  const images = input.images;
  const quiet = input.context === 'delivery_confirmation' || input.context === 'inventory_check';
  const classified = classify(folded);
  const urgent = matches(URGENT_TERMS, folded);
  const high = matches(HIGH_TERMS, folded);
  // A delivery or a stock count names things without a fault (mop heads in a store, bulbs and
  // fuses on a shelf): there a category needs a named machine, a symptom or a high or urgent cue.
  const counted = quiet && !classified.fault && urgent.length === 0 && high.length === 0;
  const { category, tags: categoryTags, ambiguous } = counted ? { category: 'other' as const, tags: [], ambiguous: false } : classified;
  const low = matches(LOW_TERMS, folded);
  const softened = matches(SOFTENING_TERMS, folded);
  // A fault that is getting worse is not minor; people at risk (children, the elderly) raise a
  // real fault from medium to high, never a quiet count or delivery that names no fault.
  const growing = matches(GROWTH_TERMS, folded);
  const aggravated = category === 'other' ? [] : matches(AGGRAVATING_TERMS, folded);
  // A small fitting that failed is a medium job (offline-rules.ts, MINOR_FITTING_TERMS).
  const minorFailure = high.length > 0 && high.every((tag) => FAILURE_ONLY_TAGS.has(tag)) && matches(MINOR_FITTING_TERMS, folded).length > 0;
  const priority: ReportResult['priority'] =
    urgent.length > 0
      ? 'urgent'
      : high.length > 0
        ? (softened.length > 0 || minorFailure) && aggravated.length === 0
          ? 'medium'
          : 'high'
        : aggravated.length > 0
          ? 'high'
          : (low.length > 0 && growing.length === 0) || (quiet && category === 'other')
            ? 'low'
            : 'medium';

  const contextLabel = input.context.replaceAll('_', ' ');
  const firstSentence = text.split(/(?<=[.!?])\s/)[0] ?? '';
  const title =
    text !== ''
      ? `${CATEGORY_LABEL[category]}: ${truncate(firstSentence, 80)}`
      : given !== ''
        ? `${CATEGORY_LABEL[category]} evidence: instructions only, no description (${contextLabel})`
        : `${CATEGORY_LABEL[category]} evidence: ${images.length} image${images.length === 1 ? '' : 's'} (${contextLabel})`;

  const totalBytes = images.reduce((sum, image) => sum + image.sizeBytes, 0);
  const types = [...new Set(images.map((image) => image.mimeType))].join(', ');
  const keywords = [...new Set([...categoryTags, ...urgent, ...high, ...aggravated, ...low, ...softened, ...growing])];
  const description = [
    `Context: ${contextLabel}.`,
    given === '' ? 'No text evidence was provided.' : text === '' ? 'The text evidence describes nothing.' : `Reported: "${truncate(text, 400)}"`,
    instructions === 0 ? '' : `${instructions} sentence${instructions === 1 ? '' : 's'} addressed to the report writer ${instructions === 1 ? 'was' : 'were'} set aside.`,
    images.length === 0 ? '' : `${images.length} image${images.length === 1 ? '' : 's'} attached (${types}; ${humanSize(totalBytes)}).`,
    `Category ${category} and priority ${priority} were suggested from ${keywords.length > 0 ? `the keywords: ${keywords.join(', ')}` : 'no specific keywords'}.`,
  ]
    .filter((part) => part !== '')
    .join(' ');

  const riskFlags: string[] = [];
  if (given === '') riskFlags.push('no_text_evidence');
  if (given === '' && images.length > 0) riskFlags.push('image_only_evidence');
  if (instructions > 0) riskFlags.push('possible_prompt_injection');
  if (images.length > 0) riskFlags.push('image_content_not_analysed');
  if (urgent.length > 0) riskFlags.push('urgent_keywords');
  if (text !== '' && words < 5) riskFlags.push('short_text_evidence');
  if (text !== '' && category === 'other') riskFlags.push('no_category_match');
  if (ambiguous) riskFlags.push('ambiguous_category');
  // This generator writes English only; say so when other guidance was given.
  if (input.language !== undefined && !/^\s*(en\b|en-|english\b)/i.test(input.language)) riskFlags.push('language_not_applied');

  const tags = [
    ...new Set([
      ...(category === 'other' ? [] : [category]),
      input.context,
      ...keywords,
      ...(text === '' ? [] : ['text_evidence']),
      ...(images.length === 0 ? [] : ['image_evidence']),
    ]),
  ].slice(0, 12);

  const confidence =
    0.2 +
    Math.min(0.35, words * 0.01) +
    (category === 'other' ? 0 : 0.15 + (categoryTags.length >= 2 ? 0.05 : 0)) +
    Math.min(0.15, images.length * 0.05) -
    (ambiguous ? 0.1 : 0);

  const suggestedNextStep =
    category === 'other' && text === ''
      ? null
      : priority === 'urgent'
        ? `Treat as urgent: ${NEXT_STEP[category].charAt(0).toLowerCase()}${NEXT_STEP[category].slice(1)}`
        : NEXT_STEP[category];

  return {
    title,
    description,
    category,
    priority,
    suggestedNextStep,
    tags,
    riskFlags,
    confidence: Math.round(clamp(confidence, 0.05, 0.9) * 100) / 100,
  };
}

export class OfflineReportGenerator implements ReportGenerator {
  readonly #delayMs: number;
  readonly #observer: GenerationObserver;

  constructor(options: OfflineReportGeneratorOptions = {}) {
    this.#delayMs = options.delayMs ?? 0;
    this.#observer = options.observer ?? NO_OBSERVER;
  }

  async generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    const started = performance.now();
    await abortableDelay(this.#delayMs, signal);
    const candidate = deriveOfflineReport(input);
    const tokens = offlineTokens(input, candidate);
    this.#observer.attempt(OFFLINE_MODEL, 'ok');
    this.#observer.tokens(OFFLINE_MODEL, tokens);
    return {
      candidate,
      generator: 'offline',
      model: OFFLINE_MODEL,
      latencyMs: Math.round(performance.now() - started),
      tokens,
      tokenUsage: null,
    };
  }
}
