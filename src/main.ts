// Entry point of `npm start`: configuration, logger, the service, signals. Nothing else.
import { ConfigError, loadConfig } from './config.ts';
import { startService } from './server.ts';
import { ensureDemoCustomer } from './admin/demo-customer.ts';
import { createLogger } from './shared/logger.ts';

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
try {
  const service = await startService(config, logger);
  if (service.database.embedded) {
    const keyFile = await ensureDemoCustomer(service.database, config.dataDir, logger);
    if (keyFile) logger.info({ keyFile }, 'demo customer created; its API key is in the file (mode 0600)');
  }
  logger.info({ url: service.url, metricsUrl: service.metricsUrl, generator: config.reportGenerator, rateLimitStore: config.rateLimitStore }, 'listening');
  const stop = (signal: string) => {
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
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  logger.fatal({ err: error instanceof Error ? error.message : String(error) }, 'start failed');
  process.exit(1);
}
