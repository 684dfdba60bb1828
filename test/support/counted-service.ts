// The service under test talking to the test database through the statement-counting proxy
// (bench/support/statement-counter.ts): what it asks the database is counted on the wire.
import { startStatementCounter, type StatementCounter } from '../../bench/support/statement-counter.ts';
import { testDatabaseUrl } from './database.ts';
import { viaProxy } from './tcp-proxy.ts';
import { useService, type ServiceUnderTest } from './use-service.ts';

export interface CountedService {
  readonly app: ServiceUnderTest;
  /** The proxy's counter; read it inside tests, once `before` has run. */
  readonly counter: StatementCounter;
}

/**
 * Registers, in the calling describe block, the counter (started first, closed last) and the
 * service behind it (useService), with the idempotency sweep out of the way so that only the
 * requests' own statements are counted.
 */
export function useCountedService(): CountedService {
  let counter: StatementCounter | undefined;
  before(async () => {
    const target = new URL(testDatabaseUrl());
    counter = await startStatementCounter(target.hostname, Number(target.port || 5432));
  });
  const app = useService(() => ({ DATABASE_URL: viaProxy(testDatabaseUrl(), started()), IDEMPOTENCY_SWEEP_INTERVAL_SECONDS: '86400' }));
  after(async () => {
    await counter?.close();
  });
  function started(): StatementCounter {
    if (counter === undefined) throw new Error('the statement counter has not started (read it inside a test or hook)');
    return counter;
  }
  return {
    app,
    get counter() {
      return started();
    },
  };
}
