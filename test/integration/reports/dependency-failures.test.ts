// Every 503 of a dependency of report creation, provoked deterministically in a database of its
// own (one table broken, nothing else): the step's code, never 500; nothing of the attempt
// remains (no report, no unit, no claim); no generator call or image fetch for a step before
// them; and once the fault is removed the same key makes the one report (R14, R15, R16, R20,
// spec section 5 item 8, section 7).
import { expect } from 'chai';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { applyMigrations } from '../../../src/db/migrator.ts';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { createCustomerFixture, openOrm, withEmptyDatabase } from '../../support/database.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { caller, customerTotals, isReplay, Ledger, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const BODY = { context: 'property_maintenance', evidence: { text: 'Broken window latch.', images: [{ url: 'https://img.example/latch.png' }] } };
const KEY = { 'idempotency-key': 'fault' };

interface Fault {
  code: ErrorCode;
  /** The step that fails comes before image retrieval and generation (steps 3 to 6). */
  beforeStep7: boolean;
  brokenBy: string[];
  repairedBy: string[];
}

const FAULTS: Record<string, Fault> = {
  'the rate-limit counter table is gone (R20)': {
    code: 'rate_limit_unavailable',
    beforeStep7: true,
    brokenBy: ['alter table rate_limit_counter rename to gone'],
    repairedBy: ['alter table gone rename to rate_limit_counter'],
  },
  'the entitlement table is gone (spec section 5 item 8)': {
    code: 'entitlement_check_unavailable',
    beforeStep7: true,
    brokenBy: ['alter table product_entitlement rename to gone'],
    repairedBy: ['alter table gone rename to product_entitlement'],
  },
  'the idempotency table is gone (spec 4.1 rule 4)': {
    code: 'idempotency_unavailable',
    beforeStep7: true,
    brokenBy: ['alter table idempotency_record rename to gone'],
    repairedBy: ['alter table gone rename to idempotency_record'],
  },
  'the usage counter is gone (spec section 7: generation does not start)': {
    code: 'quota_check_unavailable',
    beforeStep7: true,
    brokenBy: ['alter table usage_counter rename to gone'],
    repairedBy: ['alter table gone rename to usage_counter'],
  },
  'the report insert fails (R15)': {
    code: 'evidence_report_write_failed',
    beforeStep7: false,
    brokenBy: [
      `create function refuse_report() returns trigger language plpgsql as $$ begin raise exception 'no reports today'; end $$`,
      'create trigger refuse_report before insert on evidence_report for each row execute function refuse_report()',
    ],
    repairedBy: ['drop trigger refuse_report on evidence_report'],
  },
  'the usage insert fails (R15)': {
    code: 'usage_recording_failed',
    beforeStep7: false,
    brokenBy: ['alter table usage_record add constraint no_rows check (false) not valid'],
    repairedBy: ['alter table usage_record drop constraint no_rows'],
  },
  'the commit fails on a deferred check of the usage record (R15)': {
    code: 'usage_recording_failed',
    beforeStep7: false,
    brokenBy: [
      `create function refuse_usage() returns trigger language plpgsql as $$ begin raise exception 'not at commit'; end $$`,
      `create constraint trigger refuse_usage after insert on usage_record deferrable initially deferred
         for each row execute function refuse_usage()`,
    ],
    repairedBy: ['drop trigger refuse_usage on usage_record'],
  },
};

async function run(em: EntityManager, statements: string[]): Promise<void> {
  for (const sql of statements) await em.execute(sql);
}

describe('POST /v1/evidence/reports: each dependency failure is its own 503 and leaves nothing (section 7, R15)', function () {
  // A migrated database of this file alone: the faults below change its schema, so they never
  // touch the shared test database. Each fault is repaired before the next, each uses a customer
  // of its own.
  this.timeout(60_000);
  const ledger = new Ledger();
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();
  let orm: MikroORM;
  let service: TestService;
  let done: () => void;
  let closed: Promise<void>;
  const em = () => orm.em.fork();
  const newCustomer = async () => caller(service.url, await createCustomerFixture({}, em()), ledger);

  before(async () => {
    let ready: (url: string) => void;
    const url = new Promise<string>((resolve) => (ready = resolve));
    closed = withEmptyDatabase(async (databaseUrl) => {
      ready(databaseUrl);
      await new Promise<void>((resolve) => (done = resolve));
    });
    orm = await openOrm(await url, 2);
    await applyMigrations(orm);
    service = await startTestService({ DATABASE_URL: await url, DB_POOL_SIZE: '4' }, { generator, imageFetcher });
  });
  after(async () => {
    await service?.close();
    if (orm) await ledger.verify(em());
    await orm?.close(true);
    done?.();
    await closed;
  });

  for (const [fault, { code, beforeStep7, brokenBy, repairedBy }] of Object.entries(FAULTS)) {
    it(`${fault}: 503 ${code}, nothing remains, and the same key works once repaired`, async () => {
      const client = await newCustomer();
      const [calls, fetches] = [generator.callCount, imageFetcher.calls.length];
      await run(em(), brokenBy);
      let res;
      try {
        res = await client.create(BODY, { headers: KEY });
      } finally {
        await run(em(), repairedBy);
      }
      expectApiError(res, code);
      expect(await customerTotals(client.customerId, em())).to.deep.equal({ reports: 0, units: 0, claims: 0 });
      if (beforeStep7) {
        expect(imageFetcher.calls.length, 'no image fetch before step 7').to.equal(fetches);
        expect(generator.callCount, 'no generation before step 8').to.equal(calls);
      } else {
        expect(generator.callCount).to.equal(calls + 1);
      }
      const retry = await client.create(BODY, { headers: KEY });
      expect(retry.status).to.equal(201);
      expect(isReplay(retry)).to.equal(false);
      expect(await customerTotals(client.customerId, em())).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    });
  }

  it('a completed original that cannot be restored is 503 idempotency_replay_unavailable, and replays once it can (spec 4.1 rule 4)', async () => {
    const client = await newCustomer();
    const original = await client.create<CreatedReport>(BODY, { headers: KEY });
    expect(original.status).to.equal(201);
    const [row] = await em().execute<{ result: unknown }[]>('select result from evidence_report where id = ?', [original.body.id]);
    await em().execute(`update evidence_report set result = '{"title": 5}'::jsonb where id = ?`, [original.body.id]);
    const calls = generator.callCount;
    expectApiError(await client.create(BODY, { headers: KEY }), 'idempotency_replay_unavailable');
    expect(generator.callCount, 'a failed replay never generates anew').to.equal(calls);
    expect(await customerTotals(client.customerId, em())).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    await em().execute('update evidence_report set result = ?::jsonb where id = ?', [JSON.stringify(row?.result), original.body.id]);
    const replay = await client.create<CreatedReport>(BODY, { headers: KEY });
    expect(isReplay(replay)).to.equal(true);
    expect(replay.body).to.deep.equal(original.body);
  });
});
