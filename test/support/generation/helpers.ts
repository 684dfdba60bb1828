// Shared set-up of the generation tests: the committed contract, sample inputs with real image
// bytes, and a Gemini generator pointed at the local fake.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { geminiResponseSchema } from '../../../src/generation/create-report-generator.ts';
import { GeminiReportGenerator } from '../../../src/generation/gemini-generator.ts';
import type { GeminiReportGeneratorOptions } from '../../../src/generation/gemini-generator.ts';
import type { GenerationImage, GenerationInput, ImageMimeType } from '../../../src/generation/report-generator.ts';
import { createResultValidator, type ContractDocument } from '../../../src/generation/result-schema.ts';

export const TEST_API_KEY = 'test-gemini-key-0123456789';
export const TEST_MODEL = 'gemini-test-flash';

/** The committed contract, parsed (the same document the service publishes). */
export async function contractDocument(): Promise<ContractDocument> {
  const text = await readFile(new URL('../../../contract/openapi.yaml', import.meta.url), 'utf8');
  return parse(text) as ContractDocument;
}

/** A normalized image as the generator gets it (R38); the pixel size is only told, never checked here. */
export function image(mimeType: ImageMimeType, bytes: Buffer, width = 1, height = 1): GenerationImage {
  return { mimeType, bytes, sizeBytes: bytes.length, width, height };
}

/** A real 1x1 PNG. */
export const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** JPEG magic followed by bytes of every value, so any base64 slip shows. */
export const JPEG_BYTES = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256))]);

export function input(overrides: Partial<GenerationInput> = {}): GenerationInput {
  return {
    context: 'property_maintenance',
    language: undefined,
    text: 'Water is leaking from the pipe under the kitchen sink.',
    images: [],
    ...overrides,
  };
}

/** R24: the contract's check of an answer, as createReportGenerator gives the adapter. */
export async function contractCheck(): Promise<GeminiReportGeneratorOptions['checkCandidate']> {
  const validator = createResultValidator(await contractDocument());
  return (candidate) => validator.toReportResult(candidate);
}

/** A Gemini generator on `baseUrl` (undefined: Google's public endpoint, for nock). */
export async function geminiGenerator(
  baseUrl: string | undefined,
  overrides: Partial<GeminiReportGeneratorOptions> = {},
): Promise<GeminiReportGenerator> {
  const document = await contractDocument();
  return new GeminiReportGenerator({
    apiKey: TEST_API_KEY,
    models: [TEST_MODEL],
    baseUrl,
    timeoutMs: 3_000,
    responseSchema: geminiResponseSchema(document),
    checkCandidate: await contractCheck(),
    retryDelayMs: 20,
    ...overrides,
  });
}
