// Entry point of `npm start`: configuration, logger, the service, signals. Nothing else.
import { ConfigError, loadConfig } from './config.ts';
import { startService } from './server.ts';
import { ensureDemoCustomer } from './admin/demo-customer.ts';
import { createLogger } from './shared/logger.ts';
import { logProcessWarnings } from './shared/process-warnings.ts';
import { redactSecrets, urlSecrets } from './shared/url-secrets.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.logLevel);
logProcessWarnings(logger, urlSecrets(config, process.env));
try {
  // The demo key file exists before the port accepts its first connection, so a script that
  // waits for /healthz can read it (operator-interface.md).
  const service = await startService(config, logger, {
    beforeListen: async (database) => {
      if (!database.embedded) return;
      const keyFile = await ensureDemoCustomer(database, config.dataDir, logger);
      if (keyFile) logger.info({ keyFile }, 'demo customer created; its API key is in the file (mode 0600)');
    },
  });
  logger.info({ url: service.url, metricsUrl: service.metricsUrl, generator: config.reportGenerator, rateLimitStore: config.rateLimitStore }, 'listening');
  let stopping = false;
  const stop = (signal: string) => {
    // R35: a second signal (npm start under Ctrl-C delivers SIGINT to npm and to this process,
    // and npm passes its own on; an orchestrator may repeat SIGTERM) neither restarts the
    // shutdown nor kills the process mid-request: the bound below ends it either way.
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal, drainMs: config.shutdownDrainMs }, 'shutting down: draining, then finishing in-flight requests');
    // R35: whatever hangs (a request, a database behind a partition), the process ends within
    // SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS plus a second.
    setTimeout(() => {
      logger.error('shutdown bound passed with work still open: exiting');
      process.exit(0);
    }, config.shutdownDrainMs + config.shutdownTimeoutMs + 800).unref();
    service.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (error) {
  // A configuration found bad only at start (R42: a model of GEMINI_MODEL answers 404) ends the
  // start like a bad variable: one line on stderr naming it.
  if (error instanceof ConfigError) {
    process.stderr.write(`${redactSecrets(error.message, urlSecrets(config, process.env))}\n`);
    process.exit(1);
  }
  // One line (R48: a database that cannot be reached names its variable), never a password.
  const message = redactSecrets((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '', urlSecrets(config, process.env));
  // At LOG_LEVEL=silent the logger prints nothing: the one line then goes to stderr, as for a bad value.
  if (logger.isLevelEnabled('fatal')) logger.fatal({ err: message }, 'start failed');
  else process.stderr.write(`start failed: ${message}\n`);
  process.exit(1);
}
