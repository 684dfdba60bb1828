// Migrations are listed explicitly rather than discovered by glob: plain Node 24 runs the
// .ts files directly and nothing depends on the working directory or a compiled copy
// (ruling R4). Append new migrations at the end; never edit an applied one.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_initial_schema } from './Migration20261121000000_initial_schema.ts';
import { Migration20261121000100_usage_counter_trigger } from './Migration20261121000100_usage_counter_trigger.ts';
import { Migration20261121000200_record_evidence_report } from './Migration20261121000200_record_evidence_report.ts';
import { Migration20261121000300_idempotency_drop_response } from './Migration20261121000300_idempotency_drop_response.ts';
import { Migration20261123000000_sweep_indexes } from './Migration20261123000000_sweep_indexes.ts';
import { Migration20261123000100_one_read_of_caller_facts } from './Migration20261123000100_one_read_of_caller_facts.ts';
import { Migration20261124000100_report_model_tokens } from './Migration20261124000100_report_model_tokens.ts';
import { Migration20261124000400_test_mode } from './Migration20261124000400_test_mode.ts';

export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_initial_schema', class: Migration20261121000000_initial_schema },
  { name: 'Migration20261121000100_usage_counter_trigger', class: Migration20261121000100_usage_counter_trigger },
  { name: 'Migration20261121000200_record_evidence_report', class: Migration20261121000200_record_evidence_report },
  { name: 'Migration20261121000300_idempotency_drop_response', class: Migration20261121000300_idempotency_drop_response },
  { name: 'Migration20261123000000_sweep_indexes', class: Migration20261123000000_sweep_indexes },
  { name: 'Migration20261123000100_one_read_of_caller_facts', class: Migration20261123000100_one_read_of_caller_facts },
  { name: 'Migration20261124000100_report_model_tokens', class: Migration20261124000100_report_model_tokens },
  { name: 'Migration20261124000400_test_mode', class: Migration20261124000400_test_mode },
];
