// Picks the report generator the operator configured (operator-interface.md, REPORT_GENERATOR).
// 'offline' (ruling R25) is the default without GEMINI_API_KEY and a mode of its own: when
// 'gemini' is configured, a Gemini failure is that failure (R24), never an offline report.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { deriveGeminiResponseSchema } from './gemini-schema.ts';
import type { GeminiSchema } from './gemini-schema.ts';
import { OfflineReportGenerator } from './offline-generator.ts';
import type { ReportGenerator } from './report-generator.ts';
import { resolveReportResultSchema } from './result-schema.ts';
import type { ContractDocument } from './result-schema.ts';

export type GeneratorConfig = Pick<
  Config,
  'reportGenerator' | 'geminiApiKey' | 'geminiModel' | 'geminiBaseUrl' | 'generatorTimeoutMs' | 'offlineGeneratorDelayMs'
>;

/** Gemini's response schema, derived from the contract's ReportResult (one source of truth). */
export function geminiResponseSchema(document: ContractDocument): GeminiSchema {
  return deriveGeminiResponseSchema(resolveReportResultSchema(document));
}

// The Gemini adapter (and @google/genai behind it, about 10 MiB resident) is loaded only when
// the operator chose it: the offline mode does not pay for an SDK it never calls.
export async function createReportGenerator(
  config: GeneratorConfig,
  document: ContractDocument,
  logger: Pick<Logger, 'info' | 'debug'>,
): Promise<ReportGenerator> {
  switch (config.reportGenerator) {
    case 'offline':
      // Model names, keys and prompts stay out of ordinary log lines (issue 5).
      logger.info({ generator: 'offline' }, 'report generator: offline (deterministic, no network; ruling R25)');
      return new OfflineReportGenerator({ delayMs: config.offlineGeneratorDelayMs });
    case 'gemini': {
      // loadConfig already refuses REPORT_GENERATOR=gemini without a key; this guards other callers.
      if (config.geminiApiKey === undefined || config.geminiApiKey === '') {
        throw new Error('REPORT_GENERATOR=gemini needs GEMINI_API_KEY');
      }
      logger.info({ generator: 'gemini' }, 'report generator: gemini');
      const { GeminiReportGenerator } = await import('./gemini-generator.ts');
      return new GeminiReportGenerator({
        apiKey: config.geminiApiKey,
        model: config.geminiModel,
        baseUrl: config.geminiBaseUrl,
        timeoutMs: config.generatorTimeoutMs,
        responseSchema: geminiResponseSchema(document),
        logger,
      });
    }
  }
}
