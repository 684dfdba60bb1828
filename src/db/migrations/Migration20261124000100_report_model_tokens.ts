// R42, R43: the stored report keeps the model that answered (the `model` column, now always set:
// a configured model or 'offline') and its input, output and thinking tokens, each in a column
// of its own so that cost per model can be summed in SQL. Never part of a response.
//
// record_evidence_report takes them as three more named arguments (p_tokens_input,
// p_tokens_output, p_tokens_thinking): still one statement per report (R15).
import { Migration } from '@mikro-orm/migrations';
import { dropFunctionOverloads, sqlFunctionText } from '../sql-functions.ts';

export class Migration20261124000100_report_model_tokens extends Migration {
  override up(): void {
    this.addSql(`alter table "evidence_report"
      add column "tokens_input" int null constraint "evidence_report_tokens_input_check" check (tokens_input >= 0),
      add column "tokens_output" int null constraint "evidence_report_tokens_output_check" check (tokens_output >= 0),
      add column "tokens_thinking" int null constraint "evidence_report_tokens_thinking_check" check (tokens_thinking >= 0);`);
    // Today's text takes the tokens by named arguments (src/reports/record-evidence-report.sql).
    this.addSql(dropFunctionOverloads('record_evidence_report'));
    this.addSql(sqlFunctionText('reports/record-evidence-report.sql'));
  }

  override down(): void {
    this.addSql('drop function if exists record_evidence_report;');
    this.addSql('alter table "evidence_report" drop column "tokens_input", drop column "tokens_output", drop column "tokens_thinking";');
  }
}
