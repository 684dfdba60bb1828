// Node's process warnings (process.emitWarning: a library's own, such as gcp-metadata's
// MetadataLookupWarning, or Node's deprecations) are printed to stderr as plain text by default,
// outside the JSON lines the service logs. `npm start` runs Node with --no-warnings, which stops
// that printing but not the 'warning' event, and this listener logs each warning as one line:
// with the requestId of the request it arose in (R41), its text with any secret of the
// configuration's URLs replaced, and no stack.
//
// A metadata server that resets its connections makes google-auth-library warn on every lookup,
// that is on every request while it lasts; that request's own dependency-failure line already
// names the credential failure (R44: logged once), so that warning is a debug line.
import type { Logger } from 'pino';
import { requestLog } from '../observability/request-log.ts';
import { redactSecrets } from './url-secrets.ts';

const SAID_ELSEWHERE: ReadonlySet<string> = new Set(['MetadataLookupWarning']);

/** Logs every process warning from now on; returns the function that stops it. */
export function logProcessWarnings(logger: Logger, secrets: readonly string[] = []): () => void {
  const listener = (warning: Error & { code?: unknown }): void => {
    const log = requestLog() ?? logger;
    const fields = {
      warning: warning.name,
      ...(typeof warning.code === 'string' ? { warningCode: warning.code } : {}),
      detail: redactSecrets(warning.message, secrets),
    };
    if (SAID_ELSEWHERE.has(warning.name)) log.debug(fields, 'process warning');
    else log.warn(fields, 'process warning');
  };
  process.on('warning', listener);
  return () => process.off('warning', listener);
}
