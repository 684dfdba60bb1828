// The offline generator of ruling R25: the default without GEMINI_API_KEY and a documented mode
// for local use and tests, never a fallback when Gemini fails. Deterministic and network-free:
// the report is derived from the evidence text (keyword rules in offline-rules.ts), the
// operational context and the image metadata (count, types, sizes). It cannot read image
// content or translate, and says so in riskFlags rather than pretending.
import { abortableDelay } from './abortable-delay.ts';
import { CATEGORY_LABEL, HIGH_TERMS, LOW_TERMS, NEXT_STEP, RULES, URGENT_TERMS } from './offline-rules.ts';
import type { Term } from './offline-rules.ts';
import type { GenerationInput, GenerationOutput, ReportGenerator, ReportResult } from './report-generator.ts';

export interface OfflineReportGeneratorOptions {
  /** Bench-only (OFFLINE_GENERATOR_DELAY_MS): wait this long before answering; aborts cut it short. */
  readonly delayMs?: number;
}

const matches = (terms: readonly Term[], text: string): string[] =>
  terms.filter((t) => t.pattern.test(text)).map((t) => t.tag);

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function classify(text: string): { category: ReportResult['category']; tags: string[]; ambiguous: boolean } {
  let best: { category: ReportResult['category']; tags: string[] } = { category: 'other', tags: [] };
  let ambiguous = false;
  for (const rule of RULES) {
    const tags = matches(rule.terms, text);
    if (tags.length > best.tags.length) {
      best = { category: rule.category, tags };
      ambiguous = false;
    } else if (tags.length > 0 && tags.length === best.tags.length) {
      ambiguous = true; // the earlier (more safety-relevant) rule keeps the tie
    }
  }
  return { ...best, ambiguous };
}

/** The report for one input: a pure function, so the same input gives the same report. */
export function deriveOfflineReport(input: GenerationInput): ReportResult {
  const text = (input.text ?? '').replace(/\s+/g, ' ').trim();
  const words = text === '' ? 0 : text.split(' ').length;
  const images = input.images;
  const { category, tags: categoryTags, ambiguous } = classify(text);
  const urgent = matches(URGENT_TERMS, text);
  const high = matches(HIGH_TERMS, text);
  const low = matches(LOW_TERMS, text);
  const quiet = input.context === 'delivery_confirmation' || input.context === 'inventory_check';
  const priority: ReportResult['priority'] =
    urgent.length > 0 ? 'urgent' : high.length > 0 ? 'high' : low.length > 0 || (quiet && category === 'other') ? 'low' : 'medium';

  const contextLabel = input.context.replaceAll('_', ' ');
  const firstSentence = text.split(/(?<=[.!?])\s/)[0] ?? '';
  const title =
    text === ''
      ? `${CATEGORY_LABEL[category]} evidence: ${images.length} image${images.length === 1 ? '' : 's'} (${contextLabel})`
      : `${CATEGORY_LABEL[category]}: ${truncate(firstSentence, 80)}`;

  const totalBytes = images.reduce((sum, image) => sum + image.sizeBytes, 0);
  const types = [...new Set(images.map((image) => image.mimeType))].join(', ');
  const keywords = [...new Set([...categoryTags, ...urgent, ...high, ...low])];
  const description = [
    `Context: ${contextLabel}.`,
    text === '' ? 'No text evidence was provided.' : `Reported: "${truncate(text, 400)}"`,
    images.length === 0 ? '' : `${images.length} image${images.length === 1 ? '' : 's'} attached (${types}; ${humanSize(totalBytes)}).`,
    `Category ${category} and priority ${priority} were suggested from ${keywords.length > 0 ? `the keywords: ${keywords.join(', ')}` : 'no specific keywords'}.`,
  ]
    .filter((part) => part !== '')
    .join(' ');

  const riskFlags: string[] = [];
  if (text === '') riskFlags.push('no_text_evidence');
  if (text === '' && images.length > 0) riskFlags.push('image_only_evidence');
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

  constructor(options: OfflineReportGeneratorOptions = {}) {
    this.#delayMs = options.delayMs ?? 0;
  }

  async generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    const started = performance.now();
    await abortableDelay(this.#delayMs, signal);
    const candidate = deriveOfflineReport(input);
    return {
      candidate,
      generator: 'offline',
      model: null,
      latencyMs: Math.round(performance.now() - started),
      tokenUsage: null,
    };
  }
}
