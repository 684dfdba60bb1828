// A lock that holds step 1's read (R33): an open transaction with an exclusive lock on api_key,
// the table authentication reads, so that the service's statement waits until a bound ends it.
import pg from 'pg';

/** Runs `during` while a transaction on `databaseUrl` holds api_key exclusively; rolls back and disconnects after. */
export async function withApiKeyLocked<T>(databaseUrl: string, during: (holder: pg.Client) => Promise<T>): Promise<T> {
  const holder = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('lock table api_key in access exclusive mode');
    const result = await during(holder);
    await holder.query('rollback');
    return result;
  } finally {
    await holder.end();
  }
}

/**
 * The backends of the database, other than the holder's, still waiting on a lock once none are
 * left or `withinMs` has passed (polled every 100 ms): only the server's statement_timeout ends
 * such a wait; a client that gave up on its side leaves its backend waiting.
 */
export async function lockWaitersAfter(holder: pg.Client, withinMs: number): Promise<{ pid: number; query: string }[]> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const { rows } = await holder.query<{ pid: number; query: string }>(
      "select pid, query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
    );
    if (rows.length === 0 || performance.now() >= deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
