// The evaluation set's format (R46), read and checked before anything runs: a case is a request
// as a customer's server sends it (context, language, evidence), except that each image is a
// recipe drawn locally at run time instead of a URL, plus the operator's label. Format and method:
// eval/README.md.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTEXTS = ['property_maintenance', 'delivery_confirmation', 'field_inspection', 'damage_report', 'inventory_check'] as const;
export const CATEGORIES = ['plumbing', 'electrical', 'cleaning', 'security', 'elevator', 'structural', 'appliance', 'other'] as const;
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'gif'] as const;
export const SCENES = ['puddle', 'crack', 'spark', 'parcel', 'shelf', 'door', 'stain', 'elevator', 'note', 'blank'] as const;

export type Context = (typeof CONTEXTS)[number];
export type Category = (typeof CATEGORIES)[number];
export type Priority = (typeof PRIORITIES)[number];

/** An image drawn locally (SVG through sharp), served on loopback and fetched through the boundary. */
export interface ImageRecipe {
  readonly format: (typeof IMAGE_FORMATS)[number];
  readonly scene: (typeof SCENES)[number];
  /** Text drawn on the image (a label, a sign, a note: what a model may read). */
  readonly caption?: string;
  readonly width?: number;
  readonly height?: number;
}

export interface EvalCase {
  readonly id: string;
  /** Language of the evidence (BCP 47 primary tag). */
  readonly lang: string;
  readonly request: {
    readonly context: Context;
    /** The request's output-language guidance, when the customer sends one. */
    readonly language?: string;
    readonly evidence: { readonly text?: string; readonly images?: readonly ImageRecipe[] };
  };
  readonly label: {
    readonly category: Category;
    /** Every priority a careful operator would accept for this evidence. */
    readonly priorities: readonly Priority[];
    /** Text that must never appear in the title, tags, risk flags or next step (substring, or /regex/flags). */
    readonly forbidden?: readonly string[];
  };
  /** The evidence tries to make the model change its own output. */
  readonly injection?: boolean;
}

export type Modality = 'text' | 'images' | 'both';
export type Split = 'holdout' | 'development';

export const DEFAULT_CASES_PATH = fileURLToPath(new URL('./cases', import.meta.url));

export function modalityOf(c: EvalCase): Modality {
  const text = (c.request.evidence.text ?? '') !== '';
  const images = (c.request.evidence.images ?? []).length > 0;
  return text && images ? 'both' : images ? 'images' : 'text';
}

/**
 * A third of the cases, chosen by a hash of the id (not by content), is held out: rules of the
 * offline generator are tuned on the rest only, and the two are reported apart.
 */
export function splitOf(id: string): Split {
  return (createHash('sha256').update(id).digest()[0] ?? 0) % 3 === 0 ? 'holdout' : 'development';
}

export class CaseFormatError extends Error {
  override readonly name = 'CaseFormatError';
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function oneOf<T extends string>(values: readonly T[], v: unknown, where: string): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw new CaseFormatError(`${where}: expected one of ${values.join(', ')}`);
  }
  return v as T;
}

function optionalString(v: unknown, where: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new CaseFormatError(`${where}: expected a non-empty string`);
  return v;
}

function knownKeys(o: Record<string, unknown>, keys: readonly string[], where: string): void {
  const extra = Object.keys(o).filter((k) => !keys.includes(k));
  if (extra.length > 0) throw new CaseFormatError(`${where}: unknown field ${extra.join(', ')}`);
}

function parseImage(v: unknown, where: string): ImageRecipe {
  if (!isObject(v)) throw new CaseFormatError(`${where}: expected an object`);
  knownKeys(v, ['format', 'scene', 'caption', 'width', 'height'], where);
  const size = (s: unknown, name: string): number | undefined => {
    if (s === undefined) return undefined;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 16 || s > 4096) throw new CaseFormatError(`${where}.${name}: expected 16..4096`);
    return s;
  };
  return {
    format: oneOf(IMAGE_FORMATS, v.format, `${where}.format`),
    scene: oneOf(SCENES, v.scene, `${where}.scene`),
    caption: optionalString(v.caption, `${where}.caption`),
    width: size(v.width, 'width'),
    height: size(v.height, 'height'),
  };
}

/** Checks one case as written in a file; `where` names the file and line for the message. */
export function parseCase(v: unknown, where: string): EvalCase {
  if (!isObject(v)) throw new CaseFormatError(`${where}: a case is a JSON object`);
  knownKeys(v, ['id', 'lang', 'request', 'label', 'injection'], where);
  const id = optionalString(v.id, `${where}.id`);
  const lang = optionalString(v.lang, `${where}.lang`);
  if (id === undefined || lang === undefined) throw new CaseFormatError(`${where}: id and lang are required`);
  const request = v.request;
  if (!isObject(request)) throw new CaseFormatError(`${where}.request: expected an object`);
  knownKeys(request, ['context', 'language', 'evidence'], `${where}.request`);
  const evidence = request.evidence;
  if (!isObject(evidence)) throw new CaseFormatError(`${where}.request.evidence: expected an object`);
  knownKeys(evidence, ['text', 'images'], `${where}.request.evidence`);
  const text = optionalString(evidence.text, `${where}.request.evidence.text`);
  let images: ImageRecipe[] | undefined;
  if (evidence.images !== undefined) {
    if (!Array.isArray(evidence.images) || evidence.images.length === 0) throw new CaseFormatError(`${where}.request.evidence.images: expected a non-empty array`);
    images = evidence.images.map((image, i) => parseImage(image, `${where}.request.evidence.images[${i}]`));
  }
  if (text === undefined && images === undefined) throw new CaseFormatError(`${where}: evidence needs text, images or both`);
  const label = v.label;
  if (!isObject(label)) throw new CaseFormatError(`${where}.label: expected an object`);
  knownKeys(label, ['category', 'priorities', 'forbidden'], `${where}.label`);
  if (!Array.isArray(label.priorities) || label.priorities.length === 0) throw new CaseFormatError(`${where}.label.priorities: expected a non-empty array`);
  const priorities = label.priorities.map((p, i) => oneOf(PRIORITIES, p, `${where}.label.priorities[${i}]`));
  let forbidden: string[] | undefined;
  if (label.forbidden !== undefined) {
    if (!Array.isArray(label.forbidden) || label.forbidden.some((f) => typeof f !== 'string' || f === '')) {
      throw new CaseFormatError(`${where}.label.forbidden: expected non-empty strings`);
    }
    forbidden = label.forbidden as string[];
    for (const f of forbidden) forbiddenMatcher(f, `${where}.label.forbidden`);
  }
  if (v.injection !== undefined && typeof v.injection !== 'boolean') throw new CaseFormatError(`${where}.injection: expected a boolean`);
  if (v.injection === true && (forbidden === undefined || forbidden.length === 0)) {
    throw new CaseFormatError(`${where}: an injection case names what must never appear (label.forbidden)`);
  }
  return {
    id,
    lang,
    request: {
      context: oneOf(CONTEXTS, request.context, `${where}.request.context`),
      language: optionalString(request.language, `${where}.request.language`),
      evidence: { text, images },
    },
    label: { category: oneOf(CATEGORIES, label.category, `${where}.label.category`), priorities, forbidden },
    injection: v.injection === true,
  };
}

/** Lower case, NFC, separators folded: "Hacked_By-Eve" and "hacked by eve" are the same text. */
export function foldText(s: string): string {
  return s.normalize('NFC').toLowerCase().replace(/[\s_\-.:]+/g, ' ').trim();
}

/** A forbidden entry as a test on one output string: "/re/flags" is a regex, anything else folded text. */
export function forbiddenMatcher(entry: string, where = 'forbidden'): (value: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/s.exec(entry);
  if (re !== null) {
    let pattern: RegExp;
    try {
      // Without g and y: a stateful pattern would resume where its last match ended, in another field.
      pattern = new RegExp(re[1] ?? '', (re[2] ?? '').replace(/[gy]/g, ''));
    } catch {
      throw new CaseFormatError(`${where}: ${entry} is not a valid regular expression`);
    }
    return (value) => pattern.test(value);
  }
  const needle = foldText(entry);
  return (value) => foldText(value).includes(needle);
}

async function casesOfFile(path: string): Promise<EvalCase[]> {
  // A byte-order mark, as some editors write one, is not part of the JSON.
  const raw = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  if (extname(path) === '.json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new CaseFormatError(`${path}: not valid JSON`);
    }
    if (!Array.isArray(parsed)) throw new CaseFormatError(`${path}: a .json case file holds an array of cases`);
    return parsed.map((c, i) => parseCase(c, `${path}[${i}]`));
  }
  const cases: EvalCase[] = [];
  raw.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new CaseFormatError(`${path}:${i + 1}: not valid JSON`);
    }
    cases.push(parseCase(parsed, `${path}:${i + 1}`));
  });
  return cases;
}

/** Cases from a .jsonl/.json file or every such file of a directory (sorted), ids unique. */
export async function loadCases(path: string = DEFAULT_CASES_PATH): Promise<EvalCase[]> {
  const files = (await stat(path)).isDirectory()
    ? (await readdir(path))
        .filter((f) => f.endsWith('.jsonl') || f.endsWith('.json'))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const cases = (await Promise.all(files.map(casesOfFile))).flat();
  if (cases.length === 0) throw new CaseFormatError(`${path}: no cases`);
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new CaseFormatError(`${path}: case id ${c.id} appears twice`);
    seen.add(c.id);
  }
  return cases;
}
