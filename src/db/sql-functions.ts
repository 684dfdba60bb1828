// The SQL functions live as files in the folder of the domain whose rule they hold
// (`src/accounts/caller-facts.sql`, `src/reports/record-evidence-report.sql`, …), each file the
// function's current text, one function a file. Versioned migrations change tables; these files
// are applied after them, in the order below, whenever a file's text differs from what the
// database holds (as Flyway's repeatable migrations do). So a rule is changed by editing one
// file, a fresh database ends up with the same functions as an old one, and no migration has to
// copy a function's whole text again. A migration that needs a function at its point in the
// history (a trigger on it, say) loads the file (sqlFunctionText); migrations run with
// check_function_bodies off, as pg_dump's scripts do, so a file's current text may name columns
// that a later migration adds. A migration that changes a function's signature drops the old one
// (create or replace cannot change it); the file then creates the new one.
//
// What the database holds is recognised by the file's SHA-256, kept as the function's comment,
// and by the function's body, compared with the file's: no bookkeeping table, and a function
// edited by hand in the database is put back at the next start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** In dependency order: a function comes after those it calls. Paths are relative to src/. */
export const SQL_FUNCTION_FILES = [
  'usage/usage-period-start.sql',
  'usage/usage-counter-sync.sql',
  'usage/usage-counter-clear.sql',
  'usage/customer-plan-usage.sql',
  'accounts/caller-facts.sql',
  'reports/record-evidence-report.sql',
] as const;

interface SqlFunctionFile {
  path: string;
  /** The function's name, read from the file's `create or replace function NAME(`. */
  name: string;
  text: string;
  /** The body between the file's `$$` quotes, as PostgreSQL keeps it (pg_proc.prosrc). */
  body: string;
  /** The comment the function carries once this text is applied. */
  marker: string;
}

const SRC = new URL('../', import.meta.url);
const CREATE = /^\s*create\s+or\s+replace\s+function\s+([a-z_][a-z0-9_]*)\s*\(/im;

function loadSqlFunctionFile(path: string): SqlFunctionFile {
  const text = readFileSync(new URL(path, SRC), 'utf8');
  const name = CREATE.exec(text)?.[1];
  if (!name) throw new Error(`${path}: expected one "create or replace function NAME(" statement`);
  const body = /\$\$([\s\S]*)\$\$/.exec(text)?.[1];
  if (body === undefined) throw new Error(`${path}: expected the function's body between $$ quotes`);
  const sha256 = createHash('sha256').update(text).digest('hex');
  return { path, name, text, body, marker: `ers-sql-file ${path} sha256:${sha256}` };
}

/** A file's text, for a migration that creates the function at its point in the history. */
export function sqlFunctionText(path: (typeof SQL_FUNCTION_FILES)[number]): string {
  return loadSqlFunctionFile(path).text;
}

/**
 * Drops every function of this name in the schema, whatever its arguments: for a migration that
 * changes a function's signature (its file then creates the new one). Callers use named
 * notation, so no caller depends on the old argument list.
 */
export function dropFunctionOverloads(name: string): string {
  return `do $$
    declare f regprocedure;
    begin
      for f in select p.oid::regprocedure from pg_proc p where p.proname = '${name}' and p.pronamespace = current_schema()::regnamespace loop
        execute 'drop function ' || f::text;
      end loop;
    end $$;`;
}

export function sqlFunctionFiles(): SqlFunctionFile[] {
  return SQL_FUNCTION_FILES.map(loadSqlFunctionFile);
}

/** Runs one statement (with parameters) inside the caller's transaction. */
type ExecuteInTransaction = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Applies each file whose text the database does not hold yet; returns their paths, in order. */
export async function applySqlFunctionFiles(execute: ExecuteInTransaction): Promise<string[]> {
  const files = sqlFunctionFiles();
  const rows = await execute(
    `select p.proname as name, obj_description(p.oid, 'pg_proc') as marker, p.prosrc as body
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = current_schema() and p.proname = any(string_to_array(?, ','))`,
    [files.map((file) => file.name).join(',')],
  );
  const held = new Set(rows.map((row) => `${String(row.name)}\n${String(row.marker)}\n${String(row.body)}`));
  const applied: string[] = [];
  for (const file of files) {
    if (held.has(`${file.name}\n${file.marker}\n${file.body}`)) continue;
    await execute(file.text);
    // Without an argument list: the name is unique in the schema once the file is applied.
    await execute(`comment on function ${file.name} is '${file.marker}'`);
    applied.push(file.path);
  }
  return applied;
}
