// The REST GenerateContentRequest as the Gemini API and Vertex AI define it, for the fake's
// strict check: a field the request does not define, or a value outside its enum, is answered
// 400 INVALID_ARGUMENT, as the real API answers it ("Invalid JSON payload received. Unknown name
// ..."). Field lists follow @google/genai 3.1.0's own converters (generateContentParametersToMldev
// / ToVertex, generateContentConfigToMldev / ToVertex, partToMldev, contentToMldev) and its
// types; enum values are taken from the SDK's enums, so they move with the SDK.
import { Ajv } from 'ajv';
import type { ErrorObject } from 'ajv';
import { FinishReason, HarmBlockThreshold, HarmCategory, MediaResolution, Modality, ThinkingLevel, Type } from '@google/genai';

export type GeminiApi = 'developer' | 'vertex';

const values = (e: Record<string, string>): string[] => Object.values(e);
/** Answers Gemini's JSON mode and enum mode produce; anything else is refused by the API. */
export const RESPONSE_MIME_TYPES = ['text/plain', 'application/json', 'text/x.enum'];
export const THINKING_LEVELS = values(ThinkingLevel);
export const FINISH_REASONS = values(FinishReason);

const anything = {};
const object = { type: 'object' };

function schemaSchema(): object {
  return {
    $id: 'schema',
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { enum: values(Type) },
      format: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      nullable: { type: 'boolean' },
      enum: { type: 'array', items: { type: 'string' } },
      maxItems: { type: ['string', 'integer'] },
      minItems: { type: ['string', 'integer'] },
      properties: { type: 'object', additionalProperties: { $ref: 'schema' } },
      required: { type: 'array', items: { type: 'string' } },
      minProperties: { type: ['string', 'integer'] },
      maxProperties: { type: ['string', 'integer'] },
      minLength: { type: ['string', 'integer'] },
      maxLength: { type: ['string', 'integer'] },
      pattern: { type: 'string' },
      example: anything,
      anyOf: { type: 'array', items: { $ref: 'schema' } },
      propertyOrdering: { type: 'array', items: { type: 'string' } },
      default: anything,
      items: { $ref: 'schema' },
      minimum: { type: 'number' },
      maximum: { type: 'number' },
    },
  };
}

function requestSchema(api: GeminiApi): object {
  const blob = {
    type: 'object',
    additionalProperties: false,
    required: ['mimeType', 'data'],
    properties: {
      // The image types Gemini and Vertex AI take inline (ai.google.dev and
      // cloud.google.com "Image understanding"; a GIF is refused: discuss.ai.google.dev/t/71468).
      mimeType: { enum: ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'] },
      data: { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' },
      ...(api === 'vertex' ? { displayName: { type: 'string' } } : {}),
    },
  };
  const part = {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      text: { type: 'string' },
      inlineData: blob,
      fileData: object,
      thought: { type: 'boolean' },
      thoughtSignature: { type: 'string' },
      functionCall: object,
      functionResponse: object,
      executableCode: object,
      codeExecutionResult: object,
      videoMetadata: object,
      mediaResolution: object,
      partMetadata: object,
      toolCall: object,
      toolResponse: object,
    },
  };
  const content = {
    type: 'object',
    additionalProperties: false,
    required: ['parts'],
    properties: { role: { enum: ['user', 'model'] }, parts: { type: 'array', minItems: 1, items: part } },
  };
  const generationConfig = {
    type: 'object',
    additionalProperties: false,
    properties: {
      temperature: { type: 'number', minimum: 0, maximum: 2 },
      topP: { type: 'number', minimum: 0, maximum: 1 },
      topK: { type: 'number', minimum: 1 },
      candidateCount: { type: 'integer', minimum: 1, maximum: 8 },
      maxOutputTokens: { type: 'integer', minimum: 1 },
      stopSequences: { type: 'array', items: { type: 'string' }, maxItems: 5 },
      responseLogprobs: { type: 'boolean' },
      logprobs: { type: 'integer' },
      presencePenalty: { type: 'number' },
      frequencyPenalty: { type: 'number' },
      seed: { type: 'integer' },
      responseMimeType: { enum: RESPONSE_MIME_TYPES },
      responseSchema: { $ref: 'schema' },
      responseJsonSchema: anything,
      responseModalities: { type: 'array', items: { enum: values(Modality) } },
      mediaResolution: { enum: values(MediaResolution) },
      speechConfig: object,
      thinkingConfig: {
        type: 'object',
        additionalProperties: false,
        properties: {
          includeThoughts: { type: 'boolean' },
          thinkingBudget: { type: 'integer', minimum: -1 },
          thinkingLevel: { enum: THINKING_LEVELS },
        },
      },
      audioTranscriptionConfig: object,
      imageConfig: object,
      ...(api === 'developer'
        ? { enableEnhancedCivicAnswers: { type: 'boolean' } }
        : { routingConfig: object, modelConfig: object, audioTimestamp: { type: 'boolean' } }),
    },
  };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['contents'],
    properties: {
      contents: { type: 'array', minItems: 1, items: content },
      systemInstruction: content,
      generationConfig,
      safetySettings: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['category', 'threshold'],
          properties: { category: { enum: values(HarmCategory) }, threshold: { enum: values(HarmBlockThreshold) }, method: { type: 'string' } },
        },
      },
      tools: { type: 'array', items: object },
      toolConfig: object,
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      cachedContent: { type: 'string' },
      serviceTier: { type: 'string' },
      continuationToken: { type: 'string' },
      ...(api === 'developer' ? { store: { type: 'boolean' } } : { modelArmorConfig: object, outputConfig: object }),
    },
  };
}

const ajv = new Ajv({ allErrors: false, strict: false });
ajv.addSchema(schemaSchema());
const validators = { developer: ajv.compile(requestSchema('developer')), vertex: ajv.compile(requestSchema('vertex')) };

/** The real API's wording for the first problem of a refused body. */
function describe(error: ErrorObject): string {
  const at = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'request';
  if (error.keyword === 'additionalProperties') {
    return `Invalid JSON payload received. Unknown name "${String(error.params.additionalProperty)}" at '${at}': Cannot find field.`;
  }
  if (error.keyword === 'enum') return `Invalid value at '${at}', ${error.message ?? 'not one of its enum values'}.`;
  return `Invalid value at '${at}': ${error.message ?? 'invalid'}.`;
}

/** Undefined when the body is a GenerateContentRequest of `api`; else the 400's message. */
export function checkGenerateContentRequest(body: unknown, api: GeminiApi): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Invalid JSON payload received.';
  const validate = validators[api];
  return validate(body) ? undefined : describe(validate.errors?.[0] as ErrorObject);
}
