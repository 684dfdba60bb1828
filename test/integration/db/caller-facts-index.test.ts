// Step 1's one read (caller_facts) finds the key by its unique index, never by scanning every
// key: api_key.key_hash is char(64), and a text comparison would make PostgreSQL cast the column
// and scan the table, so a flood of well-formed junk keys (which pass R51's shape check) would
// cost a scan each, growing with the number of keys. With sequential scans priced out, the lookup
// must be one probe of the key's unique index; a comparison that cannot use it scans instead.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createCustomerFixture, testEm } from '../../support/database.ts';

describe('caller_facts looks the key up by its index (R51)', () => {
  it('an unknown key of the right shape: one probe of the key\'s unique index, no scan of api_key', async () => {
    // Keys to be read, if the lookup scanned.
    await createCustomerFixture();
    await createCustomerFixture();
    const em = (await testEm()).fork();
    const junk = createHash('sha256').update(`ers_live_${randomBytes(20).toString('hex')}`).digest('hex');
    // This transaction's scans (pg_stat_get_xact_numscans: sequential scans of a table, index
    // scans of an index), read before and after the lookup: its own share is the difference.
    const counters = async (trx: typeof em) => {
      const [row] = await trx.execute<{ table_scans: string; key_index_scans: string }[]>(
        "select pg_stat_get_xact_numscans('api_key'::regclass) as table_scans, pg_stat_get_xact_numscans('api_key_key_hash_unique'::regclass) as key_index_scans",
      );
      return { tableScans: Number(row?.table_scans), keyIndexScans: Number(row?.key_index_scans) };
    };
    const lookup = (trx: typeof em) => trx.execute("select * from caller_facts(?, 'evidence_reports', 'evidence_report', now())", [junk]);
    const scans = await em.transactional(async (trx) => {
      // Whatever plan this session cached for the function (a tiny table is cheaper to scan),
      // the lookup is planned afresh with sequential scans priced out: the key's index is then
      // what finds the key, if the comparison lets it.
      for (let i = 0; i < 6; i++) await lookup(trx);
      await trx.execute('set local enable_seqscan = off');
      await trx.execute('set local plan_cache_mode = force_custom_plan');
      const before = await counters(trx);
      expect(await lookup(trx)).to.have.length(0);
      const after = await counters(trx);
      return { tableScans: after.tableScans - before.tableScans, keyIndexScans: after.keyIndexScans - before.keyIndexScans };
    });
    expect(scans).to.deep.equal({ tableScans: 0, keyIndexScans: 1 });
  });
});
