// Safe log fields for the cause of a failure (ruling R26: nothing secret or customer-owned in logs).
/**
 * What a log line may say about the cause of a dependency failure: its type and machine codes
 * (SQLSTATE, errno, a fixed reason), never its message. Driver messages can quote the failed
 * statement with its parameters, i.e. customer evidence; provider messages are not ours to log.
 */
export function describeCause(cause: unknown): Record<string, unknown> | undefined {
  if (!(cause instanceof Error)) return cause === undefined ? undefined : { type: typeof cause };
  const fields = cause as Error & Record<string, unknown>;
  const picked: Record<string, unknown> = { type: cause.name };
  for (const key of ['code', 'sqlState', 'errno', 'kind', 'reason'] as const) {
    const value = fields[key];
    if (typeof value === 'string' || typeof value === 'number') picked[key] = value;
  }
  return picked;
}
