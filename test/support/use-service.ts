// The hooks most test files share, written once: `before` starts the real service on the test
// database (pools sized for it, serviceEnv) and creates a customer; `after` closes the service
// and holds the ledger of every caller made here (R15: units == stored reports == 201
// answers, no claim left in progress). Call it inside a describe; read the fields in tests.
// A file that sends as `customer` with a client of its own is not held to the ledger for it:
// `client` is made, and the customer tracked, on first use.
// Hooks of a describe run in the order they are declared: a resource the environment needs
// (a fake Gemini, an image host) is started by a `before` declared above the call, and closed
// by an `after` declared below it, once the service is closed.
import type { ServiceOverrides } from '../../src/server.ts';
import { caller, Ledger, serviceEnv, type Caller } from './reports.ts';
import { createCustomerFixture, type CustomerFixture } from './database.ts';
import { startTestService, type TestService } from './service.ts';

type CustomerInput = Parameters<typeof createCustomerFixture>[0];

/** A value, or a function giving it when `before` runs (for what an earlier hook started). */
export type WhenStarted<T> = T | (() => T | Promise<T>);

export interface ServiceUnderTest {
  readonly service: TestService;
  /** A customer with the default plan (1000), subscription, entitlement and key. */
  readonly customer: CustomerFixture;
  /** POST and GET usage as `customer`; every answer noted in `ledger` (tracked from first use). */
  readonly client: Caller;
  readonly ledger: Ledger;
  /** Another customer (createCustomerFixture(input)) and its caller, also in the ledger. */
  newCaller(input?: CustomerInput): Promise<Caller>;
}

export function useService(env: WhenStarted<Record<string, string>> = {}, overrides: WhenStarted<ServiceOverrides> = {}): ServiceUnderTest {
  const ledger = new Ledger();
  let service: TestService | undefined;
  let customer: CustomerFixture | undefined;
  let client: Caller | undefined;

  before(async () => {
    service = await startTestService(await serviceEnv(await valueOf(env)), await valueOf(overrides));
    customer = await createCustomerFixture();
  });
  after(async () => {
    await service?.close();
    await ledger.verify();
  });

  function ready<T>(value: T | undefined): T {
    if (value === undefined) throw new Error('useService: read in a test or a later hook, once its `before` has run');
    return value;
  }
  return {
    get service() {
      return ready(service);
    },
    get customer() {
      return ready(customer);
    },
    get client() {
      client ??= caller(ready(service).url, ready(customer), ledger);
      return client;
    },
    ledger,
    async newCaller(input = {}) {
      return caller(ready(service).url, await createCustomerFixture(input), ledger);
    },
  };
}

async function valueOf<T>(value: WhenStarted<T>): Promise<T> {
  return typeof value === 'function' ? (value as () => T | Promise<T>)() : value;
}
