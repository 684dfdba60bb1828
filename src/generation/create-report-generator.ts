// Picks the report generator the operator configured (operator-interface.md, REPORT_GENERATOR).
// 'offline' (ruling R25) is the default without GEMINI_API_KEY and a mode of its own: when
// 'gemini' is configured, a Gemini failure is that failure (R24), never an offline report.
import type { Logger } from 'pino';
import { ConfigError } from '../config.ts';
import type { Config } from '../config.ts';
import type { GeminiReportGenerator } from './gemini-generator.ts';
import { deriveGeminiResponseSchema } from './gemini-schema.ts';
import type { GeminiSchema } from './gemini-schema.ts';
import { OfflineReportGenerator } from './offline-generator.ts';
import { NO_OBSERVER } from './report-generator.ts';
import type { GenerationObserver, ReportGenerator } from './report-generator.ts';
import { createResultValidator, resolveReportResultSchema } from './result-schema.ts';
import { generatorFetch, tokenRequestAgent } from '../shared/egress-proxy.ts';
import type { ContractDocument } from './result-schema.ts';

export type GeneratorConfig = Pick<
  Config,
  | 'reportGenerator'
  | 'geminiApiKey'
  | 'geminiModels'
  | 'geminiBaseUrl'
  | 'geminiTemperature'
  | 'geminiThinkingLevel'
  | 'geminiMaxOutputTokens'
  | 'vertexAi'
  | 'googleCloudProject'
  | 'googleCloudLocation'
  | 'generatorTimeoutMs'
  | 'offlineGeneratorDelayMs'
  | 'egressProxy'
>;

/** Gemini's response schema, derived from the contract's ReportResult (one source of truth). */
export function geminiResponseSchema(document: ContractDocument): GeminiSchema {
  return deriveGeminiResponseSchema(resolveReportResultSchema(document));
}

/** R42: how long the start waits for the lookup of the models. */
const MODEL_LOOKUP_MS = 10_000;

// The Gemini adapter (and @google/genai behind it, about 10 MiB resident) is loaded only when
// the operator chose it: the offline mode does not pay for an SDK it never calls.
export async function createReportGenerator(
  config: GeneratorConfig,
  document: ContractDocument,
  logger: Pick<Logger, 'info' | 'debug' | 'warn'>,
  observer: GenerationObserver = NO_OBSERVER,
): Promise<ReportGenerator> {
  switch (config.reportGenerator) {
    case 'offline':
      // Model names, keys and prompts stay out of ordinary log lines (R26).
      logger.info({ generator: 'offline' }, 'report generator: offline (deterministic, no network; ruling R25)');
      return new OfflineReportGenerator({ delayMs: config.offlineGeneratorDelayMs, observer });
    case 'gemini': {
      // loadConfig already refuses REPORT_GENERATOR=gemini without a key or Vertex AI; this guards other callers.
      if (!config.vertexAi && (config.geminiApiKey === undefined || config.geminiApiKey === '')) {
        throw new Error('REPORT_GENERATOR=gemini needs GEMINI_API_KEY or GOOGLE_GENAI_USE_VERTEXAI=true');
      }
      logger.info({ generator: 'gemini', vertexAi: config.vertexAi, models: config.geminiModels.length }, 'report generator: gemini');
      const { GeminiReportGenerator } = await import('./gemini-generator.ts');
      const vertex = config.vertexAi
        ? {
            project: config.googleCloudProject,
            location: config.googleCloudLocation,
            credentials: new (await import('./vertex-credentials.ts')).VertexCredentials({
              timeoutMs: config.generatorTimeoutMs,
              agent: tokenRequestAgent(config.egressProxy),
            }),
          }
        : undefined;
      const resultValidator = createResultValidator(document);
      const generator = new GeminiReportGenerator({
        apiKey: config.vertexAi ? undefined : config.geminiApiKey,
        vertex,
        models: config.geminiModels,
        baseUrl: config.geminiBaseUrl,
        fetch: await generatorFetch(config.egressProxy),
        timeoutMs: config.generatorTimeoutMs,
        responseSchema: geminiResponseSchema(document),
        checkCandidate: (candidate) => resultValidator.toReportResult(candidate),
        temperature: config.geminiTemperature,
        thinkingLevel: config.geminiThinkingLevel,
        maxOutputTokens: config.geminiMaxOutputTokens,
        logger,
        observer,
      });
      await checkModels(generator, logger, config.geminiMaxOutputTokens);
      return generator;
    }
  }
}

/**
 * R42: every listed model is looked up once at start. A 404 stops the start with one line
 * naming GEMINI_MODEL and the model (a retired model is found here, not by the first customer);
 * a lookup that cannot be made (network, 5xx, credentials) is logged and the start goes on.
 * R43's output bound is checked against each model's reported limit the same way: Gemini answers
 * a larger maxOutputTokens with 400 INVALID_ARGUMENT, so every request that model got would fail.
 */
async function checkModels(generator: GeminiReportGenerator, logger: Pick<Logger, 'warn'>, maxOutputTokens: number): Promise<void> {
  const lookups = await generator.lookUpModels(MODEL_LOOKUP_MS);
  const missing = lookups.find((lookup) => !lookup.found && lookup.status === 404);
  if (missing !== undefined) {
    throw new ConfigError(
      `Invalid GEMINI_MODEL: model ${missing.model} is not found (404: retired or unknown); remove it or replace it with a current model.`,
    );
  }
  const outgrown = lookups.find((lookup) => lookup.found && lookup.outputTokenLimit !== undefined && maxOutputTokens > lookup.outputTokenLimit);
  if (outgrown?.found) {
    throw new ConfigError(
      `Invalid GEMINI_MAX_OUTPUT_TOKENS: ${maxOutputTokens} is above the output limit of model ${outgrown.model} (${outgrown.outputTokenLimit} tokens), which Gemini refuses; lower it.`,
    );
  }
  for (const [modelIndex, lookup] of lookups.entries()) {
    if (!lookup.found) logger.warn({ modelIndex, reason: lookup.reason }, 'GEMINI_MODEL lookup could not be made; starting anyway (R42)');
  }
}
