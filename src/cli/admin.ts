// `npm run admin -- <command> [options]` (operator-interface.md: names, options and --json
// shapes are fixed). Parses and checks the arguments before touching the database, runs one
// use case, prints one line. Exit 1 with one stderr line on bad input, and nothing changed:
// use cases validate before they write and write in one transaction.
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConfigError, loadConfig } from '../config.ts';
import { AdminInputError } from '../admin/admin-error.ts';
import { bootstrap } from '../admin/bootstrap.ts';
import { createCustomer, setCustomerStatus } from '../admin/customers.ts';
import { setEntitlement } from '../admin/entitlements.ts';
import type { CreatedKey } from '../accounts/account-repository.ts';
import { createKey, listKeys, requireMode, setKeyStatus } from '../admin/keys.ts';
import { createPlan } from '../admin/plans.ts';
import { subscribe, unsubscribe } from '../admin/subscriptions.ts';
import { showUsage } from '../admin/usage.ts';
import { newEntityManager, openDatabase } from '../db/database.ts';
import { redactSecrets, urlSecrets } from '../shared/url-secrets.ts';
import { redactApiKeys } from '../accounts/api-key-secret.ts';

type Values = Record<string, string | boolean | undefined>;
type Run = (em: EntityManager) => Promise<{ json: object; text: string }>;
interface Command {
  strings: string[];
  /** The strings that may be left out (for the usage text). */
  optional: string[];
  flags: string[];
  /** Checks the options (no database yet) and returns the run. */
  prepare(v: Values): Run;
}

// A use case with its option parsing and its human-readable line, typed end to end.
function def<I, R extends object>(spec: {
  strings?: string[];
  optional?: string[];
  flags?: string[];
  input(v: Values): I;
  run(em: EntityManager, input: I): Promise<R>;
  human(r: R): string;
}): Command {
  return {
    strings: spec.strings ?? [],
    optional: spec.optional ?? [],
    flags: spec.flags ?? [],
    prepare: (v) => {
      const input = spec.input(v);
      return async (em) => {
        const json = await spec.run(em, input);
        return { json, text: spec.human(json) };
      };
    },
  };
}

function str(v: Values, name: string): string {
  const value = v[name];
  if (typeof value !== 'string') throw new AdminInputError(`Missing option --${name}`);
  return value;
}
function int(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  // Any run of digits is a whole number; how large it may be is the option's own check (its range in its message).
  if (!/^\d+$/.test(raw)) throw new AdminInputError(`Invalid --${name}: expected a whole number, got "${raw}"`);
  return Number(raw);
}
function month(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(raw);
  // Date.UTC reads the years 0-99 as 1900-1999: such a month would show another one silently.
  if (!match || Number(match[1]) < 1970) throw new AdminInputError(`Invalid --month: expected YYYY-MM from 1970-01 on, got "${raw}"`);
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
}
const opt = (v: Values, name: string): string | undefined => (v[name] === undefined ? undefined : str(v, name));
const customerId = (v: Values) => ({ customerId: str(v, 'customer') });
const secretLine = (r: CreatedKey): string => `key ${r.apiKeyId}: ${r.apiKey} (shown once: store it now)`;

const customerStatus = (status: 'active' | 'inactive'): Command =>
  def({
    strings: ['customer'],
    input: customerId,
    run: (em, i) => setCustomerStatus(em, { ...i, status }),
    human: (r) => `customer ${r.customerId} is now ${r.status}`,
  });
const entitlement = (entitled: boolean): Command =>
  def({
    strings: ['customer'],
    input: customerId,
    run: (em, i) => setEntitlement(em, { ...i, entitled }),
    human: (r) => `customer ${r.customerId} ${r.entitled ? 'is' : 'is not'} entitled to evidence reports`,
  });
const keyStatus = (status: 'active' | 'inactive' | 'revoked'): Command =>
  def({
    strings: ['key'],
    input: (v) => ({ apiKeyId: str(v, 'key') }),
    run: (em, i) => setKeyStatus(em, { ...i, status }),
    human: (r) => `key ${r.apiKeyId} is now ${r.status}`,
  });

const COMMANDS: Record<string, Command> = {
  bootstrap: def({
    strings: ['name', 'monthly-limit', 'mode'],
    optional: ['monthly-limit', 'mode'],
    flags: ['usage-hidden', 'no-plan', 'no-entitlement'],
    input: (v) => ({
      name: str(v, 'name'),
      mode: requireMode(opt(v, 'mode')),
      monthlyLimit: int(opt(v, 'monthly-limit'), 'monthly-limit'),
      usageHidden: v['usage-hidden'] === true,
      noPlan: v['no-plan'] === true,
      noEntitlement: v['no-entitlement'] === true,
    }),
    run: bootstrap,
    human: (r) => `customer ${r.customerId}; ${secretLine(r)}`,
  }),
  'customer create': def({
    strings: ['name'],
    input: (v) => ({ name: str(v, 'name') }),
    run: createCustomer,
    human: (r) => `customer ${r.customerId} created`,
  }),
  'customer deactivate': customerStatus('inactive'),
  'customer activate': customerStatus('active'),
  'plan create': def({
    strings: ['code', 'monthly-limit'],
    flags: ['usage-hidden'],
    input: (v) => ({
      code: str(v, 'code'),
      monthlyLimit: int(str(v, 'monthly-limit'), 'monthly-limit') as number,
      usageVisible: v['usage-hidden'] !== true,
    }),
    run: createPlan,
    human: (r) => `plan ${r.planCode} created`,
  }),
  subscribe: def({
    strings: ['customer', 'plan'],
    input: (v) => ({ ...customerId(v), planCode: str(v, 'plan') }),
    run: subscribe,
    human: (r) => `customer ${r.customerId} is on plan ${r.planCode}`,
  }),
  unsubscribe: def({
    strings: ['customer'],
    input: customerId,
    run: unsubscribe,
    human: (r) => `customer ${r.customerId} has no active plan`,
  }),
  'entitlement grant': entitlement(true),
  'entitlement revoke': entitlement(false),
  'key create': def({
    strings: ['customer', 'name', 'mode'],
    optional: ['name', 'mode'],
    input: (v) => ({ ...customerId(v), name: opt(v, 'name'), mode: requireMode(opt(v, 'mode')) }),
    run: createKey,
    human: secretLine,
  }),
  'key revoke': keyStatus('revoked'),
  'key deactivate': keyStatus('inactive'),
  'key activate': keyStatus('active'),
  'key list': def({
    strings: ['customer'],
    input: customerId,
    run: listKeys,
    human: (r) => r.keys.map((k) => `${k.apiKeyId} ${k.prefix}… ${k.status} ${k.mode}`).join('\n') || 'no keys',
  }),
  'usage show': def({
    strings: ['customer', 'month', 'mode'],
    optional: ['month', 'mode'],
    input: (v) => ({ ...customerId(v), month: month(opt(v, 'month')), mode: requireMode(opt(v, 'mode')) }),
    run: showUsage,
    human: (r) =>
      r.usage.map((u) => `${r.period.startsAt.slice(0, 7)} ${u.operation}: ${u.used} of ${u.limit} used`).join('\n'),
  }),
};

function parse(argv: string[]): { run: Run; json: boolean } {
  const name = [argv.slice(0, 2).join(' '), argv[0] ?? ''].find((n) => Object.hasOwn(COMMANDS, n));
  const command = name === undefined ? undefined : COMMANDS[name];
  if (name === undefined || command === undefined) {
    throw new AdminInputError(`Unknown command "${argv.slice(0, 2).join(' ')}"; commands: ${Object.keys(COMMANDS).join(', ')}`);
  }
  const options = Object.fromEntries([
    ...command.strings.map((o) => [o, { type: 'string' as const }]),
    ...[...command.flags, 'json'].map((o) => [o, { type: 'boolean' as const }]),
  ]);
  // A negative number after an option that takes a value is that value (parseArgs would call
  // `--monthly-limit -1` ambiguous): the option's own check then says what it accepts.
  const args = argv.slice(name.split(' ').length);
  for (let i = 0; i < args.length - 1; i++) {
    const option = args[i]?.startsWith('--') ? args[i]?.slice(2) : undefined;
    if (option !== undefined && command.strings.includes(option) && /^-\d/.test(args[i + 1] ?? '')) args.splice(i, 2, `--${option}=${args[i + 1]}`);
  }
  let values: Values;
  try {
    values = parseArgs({ args, options, strict: true }).values as Values;
  } catch (error) {
    // parseArgs explains unknown options, stray arguments and missing values.
    throw new AdminInputError(`${(error as Error).message.split('\n')[0]} (command "${name}")`);
  }
  return { run: command.prepare(values), json: values.json === true };
}

/** `help`, `--help`, `-h`: every command with its options, on stdout (exit 0). Meanings: operator-interface.md. */
function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => {
    const options = [
      ...command.strings.map((o) => (command.optional.includes(o) ? `[--${o} <value>]` : `--${o} <value>`)),
      ...command.flags.map((f) => `[--${f}]`),
    ];
    return `  ${[name, ...options].join(' ')}`;
  });
  return [
    'usage: npm run admin -- <command> [options] [--json]',
    '',
    'commands:',
    ...lines,
    '',
    '--json prints one JSON object. The environment names the database as for npm start (DATABASE_URL, or the embedded one in DATA_DIR).',
    'What each command and option means: docs/spec/operator-interface.md.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && ['help', '--help', '-h'].includes(argv[0] ?? '')) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  let db;
  try {
    const { run, json } = parse(argv);
    db = await openDatabase(loadConfig(), { migrate: true });
    const result = await run(newEntityManager(db));
    process.stdout.write(`${json ? JSON.stringify(result.json) : result.text}\n`);
    return 0;
  } catch (error) {
    const known = error instanceof AdminInputError || error instanceof ConfigError;
    const message = known ? error.message : `admin command failed: ${(error as Error).message}`;
    // Never a password of the connection URLs (R48), nor a key pasted where an id belongs (R26).
    process.stderr.write(`${redactApiKeys(redactSecrets(message.split('\n')[0] ?? '', urlSecretsOfEnvironment()))}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));

function urlSecretsOfEnvironment(): string[] {
  return urlSecrets({ databaseUrl: process.env.DATABASE_URL, databaseDirectUrl: process.env.DATABASE_DIRECT_URL, redisUrl: process.env.REDIS_URL });
}
