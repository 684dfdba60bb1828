// Step 1's one read (caller_facts) finds the key by its unique index, never by scanning every
// key: api_key.key_hash is char(64), and a text comparison would make PostgreSQL cast the column
// and scan the table, so a flood of well-formed junk keys (which pass R51's shape check) would
// cost a scan each, growing with the number of customers. With sequential scans priced out, a
// lookup the unique index can serve reads no row of api_key for an unknown key; one it cannot
// serve reads them all (a sequential scan, or the whole primary-key index with a filter).
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createCustomerFixture, testEm } from '../../support/database.ts';

describe('caller_facts looks the key up by its index (R51)', () => {
  it('an unknown key of the right shape: one probe of the key index, no row of api_key read', async () => {
    // Keys to be read, if the lookup scanned.
    await createCustomerFixture();
    await createCustomerFixture();
    const em = (await testEm()).fork();
    const junk = createHash('sha256').update(`ers_live_${randomBytes(20).toString('hex')}`).digest('hex');
    const scans = await em.transactional(async (trx) => {
      await trx.execute('set local enable_seqscan = off');
      const rows = await trx.execute("select * from caller_facts(?, 'evidence_reports', 'evidence_report', now())", [junk]);
      expect(rows).to.have.length(0);
      const [row] = await trx.execute<{ seq_tup_read: string; idx_scan: string; idx_tup_fetch: string }[]>(
        "select seq_tup_read, idx_scan, idx_tup_fetch from pg_stat_xact_user_tables where relname = 'api_key'",
      );
      return { rowsRead: Number(row?.seq_tup_read ?? 0) + Number(row?.idx_tup_fetch ?? 0), indexScans: Number(row?.idx_scan ?? 0) };
    });
    expect(scans).to.deep.equal({ rowsRead: 0, indexScans: 1 });
  });
});
