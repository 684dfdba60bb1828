// pino with the secrets redacted (ruling R26): the code never logs headers or keys, and the
// redaction is the second line of defence if someone ever does.
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config.ts';

export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'geminiApiKey',
  '*.geminiApiKey',
  'key',
  '*.key',
];

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'evidence-report-service' } };
  return destination ? pino(options, destination) : pino(options);
}
