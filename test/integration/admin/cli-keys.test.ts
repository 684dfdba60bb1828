// `admin key create|revoke|deactivate|activate|list` (operator-interface.md, ruling R26: the
// key is shown once; R27: timestamps RFC 3339 UTC with Z).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { ApiKey } from '../../../src/accounts/api-key.entity.ts';
import pg from 'pg';
import { setKeyStatus } from '../../../src/admin/keys.ts';
import { applyMigrations } from '../../../src/db/migrator.ts';
import { createCustomerFixture, openOrm, testEm, withServerDatabase } from '../../support/database.ts';
import { admin, adminJson, keysOf } from '../../support/run-admin.ts';

interface KeyList {
  keys: { apiKeyId: string; name: string | null; prefix: string; status: string; createdAt: string; lastUsedAt: string | null }[];
}

describe('admin key (R26, R27)', () => {
  it('key create returns the new key once, {"apiKeyId","apiKey"}, storing its hash and label (R26)', async () => {
    const { customerId } = await createCustomerFixture();
    const out = await adminJson<{ apiKeyId: string; apiKey: string }>('key', 'create', '--customer', customerId, '--name', 'ci');
    expect(keysOf(out)).to.deep.equal(['apiKey', 'apiKeyId']);
    const key = await (await testEm()).findOneOrFail(ApiKey, out.apiKeyId);
    expect([key.name, key.status, key.customer.id]).to.deep.equal(['ci', 'active', customerId]);
    expect(key.keyHash).to.equal(createHash('sha256').update(out.apiKey).digest('hex'));
  });

  it('key list shows keys without secrets, in exactly the documented shape (R26, R27)', async () => {
    const { customerId, apiKeyId } = await createCustomerFixture();
    const second = await adminJson<{ apiKeyId: string; apiKey: string }>('key', 'create', '--customer', customerId, '--name', 'billing worker');
    const used = new Date('2026-05-04T03:02:01.000Z');
    await (await testEm()).nativeUpdate(ApiKey, second.apiKeyId, { lastUsedAt: used });
    const result = await admin('key', 'list', '--customer', customerId, '--json');
    const list = JSON.parse(result.stdout) as KeyList;
    expect(keysOf(list)).to.deep.equal(['keys']);
    expect(list.keys.map((k) => k.apiKeyId)).to.deep.equal([apiKeyId, second.apiKeyId]);
    for (const key of list.keys) {
      // The operator interface's fields, plus the key's mode (R53) and the label it was made with.
      expect(keysOf(key)).to.deep.equal(['apiKeyId', 'createdAt', 'lastUsedAt', 'mode', 'name', 'prefix', 'status']);
      expect(key.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
      expect(key.prefix).to.match(/^ers_live_[0-9A-Za-z]{3}$/);
    }
    expect(list.keys.map((k) => k.name)).to.deep.equal([null, 'billing worker']);
    expect(list.keys[0]?.lastUsedAt).to.equal(null);
    expect(list.keys[1]?.lastUsedAt).to.equal(used.toISOString());
    expect(result.stdout).not.to.include(second.apiKey);
    expect(result.stdout).not.to.match(/[0-9a-f]{64}/);
  });

  it('key create --mode test makes an ers_test_ key that key list shows as test; a bad --mode changes nothing (R53)', async () => {
    const { customerId } = await createCustomerFixture();
    const created = await adminJson<{ apiKeyId: string; apiKey: string }>('key', 'create', '--customer', customerId, '--mode', 'test');
    expect(created.apiKey).to.match(/^ers_test_[0-9A-Za-z]{40}$/);
    const bad = await admin('key', 'create', '--customer', customerId, '--mode', 'staging', '--json');
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('--mode');
    const list = JSON.parse((await admin('key', 'list', '--customer', customerId, '--json')).stdout) as { keys: { apiKeyId: string; mode: string; prefix: string }[] };
    expect(list.keys.map((k) => k.mode)).to.deep.equal(['live', 'test']);
    expect(list.keys[1]).to.include({ apiKeyId: created.apiKeyId, prefix: created.apiKey.slice(0, 12) });
  });

  it('key deactivate, activate and revoke set the status: {"apiKeyId","status"} (R21)', async () => {
    const { apiKeyId } = await createCustomerFixture();
    expect(await adminJson('key', 'deactivate', '--key', apiKeyId)).to.deep.equal({ apiKeyId, status: 'inactive' });
    expect(await adminJson('key', 'activate', '--key', apiKeyId)).to.deep.equal({ apiKeyId, status: 'active' });
    expect(await adminJson('key', 'revoke', '--key', apiKeyId)).to.deep.equal({ apiKeyId, status: 'revoked' });
    const key = await (await testEm()).findOneOrFail(ApiKey, apiKeyId);
    expect(key.status).to.equal('revoked');
    expect(key.revokedAt).to.be.instanceOf(Date);
  });

  it('a revoked key stays revoked: activate exits 1 and changes nothing (R26)', async () => {
    const { apiKeyId } = await createCustomerFixture();
    await adminJson('key', 'revoke', '--key', apiKeyId);
    const result = await admin('key', 'activate', '--key', apiKeyId, '--json');
    expect(result.code).to.equal(1);
    expect(result.stderr.trimEnd().split('\n')).to.have.length(1);
    expect((await (await testEm()).findOneOrFail(ApiKey, apiKeyId)).status).to.equal('revoked');
  });

  it('revocation stays final against an activation running at the same moment: the activation waits for the row, then refuses (R26)', async () => {
    // Two sessions at once: on a server database of its own (the embedded one has one session).
    await withServerDatabase(async (url) => {
      const orm = await openOrm(url);
      const other = new pg.Client({ connectionString: url });
      try {
        await applyMigrations(orm);
        const { apiKeyId } = await createCustomerFixture({}, orm.em.fork());
        await setKeyStatus(orm.em.fork(), { apiKeyId, status: 'inactive' });
        await other.connect();
        // Another session holds the key's row: the revocation about to be committed.
        await other.query('begin');
        await other.query("update api_key set status = 'revoked', revoked_at = now() where id = $1", [apiKeyId]);
        const activation = setKeyStatus(orm.em.fork(), { apiKeyId, status: 'active' }).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        // Commit the revocation once the activation waits for the row.
        const deadline = Date.now() + 10_000;
        for (;;) {
          const { rows } = await other.query<{ n: string }>(
            "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
          );
          if (Number(rows[0]?.n) > 0) break;
          if (Date.now() > deadline) throw new Error('the activation never waited for the row');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await other.query('commit');
        const outcome = await activation;
        expect(outcome).to.have.property('error').that.is.instanceOf(Error).with.property('message').that.matches(/revoked/);
        const { rows } = await other.query<{ status: string }>('select status from api_key where id = $1', [apiKeyId]);
        expect(rows[0]?.status).to.equal('revoked');
      } finally {
        await other.end().catch(() => undefined);
        await orm.close(true);
      }
    });
  });
});
