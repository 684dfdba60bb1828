// The initial schema (ruling R4). Generated from the entities with MikroORM's schema
// generator, then reviewed by hand; the schema test holds entities and migrations equal.
// The usage counter trigger is the next migration, the partial unique index is here.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261121000000_initial_schema extends Migration {
  override up(): void {
    this.addSql(`create table "customer" (
      "id" uuid not null primary key,
      "name" text not null,
      "status" text not null constraint "customer_status_check" check ("status" in ('active', 'inactive')),
      "created_at" timestamptz not null default now());`);

    this.addSql(`create table "api_key" (
      "id" uuid not null primary key,
      "customer_id" uuid not null constraint "api_key_customer_id_foreign" references "customer" ("id"),
      "name" text null,
      "key_hash" char(64) not null constraint "api_key_key_hash_unique" unique,
      "prefix" text not null,
      "status" text not null constraint "api_key_status_check" check ("status" in ('active', 'inactive', 'revoked')),
      "created_at" timestamptz not null default now(),
      "last_used_at" timestamptz null,
      "revoked_at" timestamptz null);`);
    this.addSql(`create index "api_key_customer_id_index" on "api_key" ("customer_id");`);

    this.addSql(`create table "plan" (
      "code" text not null primary key,
      "monthly_limit" int not null constraint "plan_monthly_limit_check" check (monthly_limit >= 0),
      "usage_visible" boolean not null default true,
      "created_at" timestamptz not null default now());`);

    this.addSql(`create table "subscription" (
      "id" uuid not null primary key,
      "customer_id" uuid not null constraint "subscription_customer_id_foreign" references "customer" ("id"),
      "plan_code" text not null constraint "subscription_plan_code_foreign" references "plan" ("code"),
      "status" text not null constraint "subscription_status_check" check ("status" in ('active', 'ended')),
      "started_at" timestamptz not null default now(),
      "ended_at" timestamptz null);`);
    this.addSql(`create index "subscription_customer_id_index" on "subscription" ("customer_id");`);
    this.addSql(`create index "subscription_plan_code_index" on "subscription" ("plan_code");`);
    // One active plan per customer (ruling R18), enforced by the database.
    this.addSql(
      `create unique index "subscription_one_active_per_customer" on "subscription" ("customer_id") where status = 'active';`,
    );

    this.addSql(`create table "product_entitlement" (
      "customer_id" uuid not null constraint "product_entitlement_customer_id_foreign" references "customer" ("id"),
      "product" text not null,
      "active" boolean not null,
      "updated_at" timestamptz not null default now(),
      primary key ("customer_id", "product"));`);

    this.addSql(`create table "evidence_report" (
      "id" uuid not null primary key,
      "customer_id" uuid not null constraint "evidence_report_customer_id_foreign" references "customer" ("id"),
      "api_key_id" uuid not null constraint "evidence_report_api_key_id_foreign" references "api_key" ("id"),
      "request_id" text not null,
      "context" text not null,
      "language" text null,
      "input" jsonb not null,
      "images" jsonb not null,
      "result" jsonb not null,
      "generator" text not null,
      "model" text null,
      "generation_ms" int not null,
      "token_usage" jsonb null,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create index "evidence_report_api_key_id_index" on "evidence_report" ("api_key_id");`);
    this.addSql(
      `create index "evidence_report_customer_id_created_at_index" on "evidence_report" ("customer_id", "created_at");`,
    );

    this.addSql(`create table "usage_record" (
      "id" uuid not null primary key,
      "customer_id" uuid not null constraint "usage_record_customer_id_foreign" references "customer" ("id"),
      "operation" text not null,
      "units" int not null constraint "usage_record_units_check" check (units > 0),
      "report_id" uuid null constraint "usage_record_report_id_unique" unique
        constraint "usage_record_report_id_foreign" references "evidence_report" ("id") on delete restrict,
      "occurred_at" timestamptz not null default now());`);
    this.addSql(`create index "usage_record_customer_id_operation_occurred_at_index"
      on "usage_record" ("customer_id", "operation", "occurred_at");`);

    this.addSql(`create table "usage_counter" (
      "customer_id" uuid not null constraint "usage_counter_customer_id_foreign" references "customer" ("id"),
      "operation" text not null,
      "period_start" timestamptz not null,
      "used" bigint not null constraint "usage_counter_used_check" check (used >= 0),
      primary key ("customer_id", "operation", "period_start"));`);

    this.addSql(`create table "idempotency_record" (
      "customer_id" uuid not null constraint "idempotency_record_customer_id_foreign" references "customer" ("id"),
      "product" text not null,
      "operation" text not null,
      "idempotency_key" text not null,
      "fingerprint" char(64) not null,
      "status" text not null constraint "idempotency_record_status_check" check ("status" in ('in_progress', 'completed')),
      "lease_expires_at" timestamptz not null,
      "report_id" uuid null
        constraint "idempotency_record_report_id_foreign" references "evidence_report" ("id") on delete set null,
      "response" jsonb null,
      "created_at" timestamptz not null default now(),
      "completed_at" timestamptz null,
      "expires_at" timestamptz null,
      primary key ("customer_id", "product", "operation", "idempotency_key"));`);
    this.addSql(`create index "idempotency_record_report_id_index" on "idempotency_record" ("report_id");`);
    // Cleanup of expired keys (ruling R14) scans by expiry.
    this.addSql(`create index "idempotency_record_expires_at_index" on "idempotency_record" ("expires_at");`);

    // rate-limiter-flexible's RateLimiterPostgres table, column order included (ruling R20).
    this.addSql(`create table "rate_limit_counter" (
      "key" varchar(255) not null primary key,
      "points" int not null default 0,
      "expire" bigint null);`);
  }

  override down(): void {
    for (const table of [
      'rate_limit_counter',
      'idempotency_record',
      'usage_counter',
      'usage_record',
      'evidence_report',
      'product_entitlement',
      'subscription',
      'plan',
      'api_key',
      'customer',
    ]) {
      this.addSql(`drop table if exists "${table}";`);
    }
  }
}
