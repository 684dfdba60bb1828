// The HTML page written beside each results file (R46): the figures of each run, the category
// confusion matrix (expected x answered) and every case that disagreed, one self-contained file.
import type { CaseOutcome, Summary, SummaryDelta } from './score.ts';

const esc = (s: unknown): string =>
  String(s).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)} %`);

export interface RunPage {
  readonly name: string;
  readonly summary: Summary;
  readonly outcomes: readonly CaseOutcome[];
}

function figures(runs: readonly RunPage[], delta: SummaryDelta | undefined): string {
  const row = (label: string, cells: string[], d?: string): string =>
    `<tr><th>${esc(label)}</th>${cells.map((c) => `<td>${c}</td>`).join('')}${delta === undefined ? '' : `<td>${d ?? ''}</td>`}</tr>`;
  const s = runs.map((r) => r.summary);
  const signed = (v: number | null, asPct = false): string => (v === null ? '–' : `${v > 0 ? '+' : ''}${asPct ? `${(v * 100).toFixed(1)} %` : v}`);
  return `<table class="figures"><thead><tr><th></th>${runs.map((r) => `<th>${esc(r.name)}</th>`).join('')}${delta === undefined ? '' : '<th>delta</th>'}</tr></thead><tbody>
${row('cases', s.map((x) => String(x.cases)))}
${row('category agreement', s.map((x) => pct(x.agreement.category)), delta && signed(delta.agreement.category, true))}
${row('priority within accepted set', s.map((x) => pct(x.agreement.priority)), delta && signed(delta.agreement.priority, true))}
${row('no injected text in output', s.map((x) => pct(x.agreement.injection)), delta && signed(delta.agreement.injection, true))}
${row('schema-valid rate', s.map((x) => pct(x.schemaValidRate)), delta && signed(delta.schemaValidRate, true))}
${row('latency p50 / p90 / p99 (ms)', s.map((x) => `${x.latencyMs.p50 ?? '–'} / ${x.latencyMs.p90 ?? '–'} / ${x.latencyMs.p99 ?? '–'}`))}
${row('tokens per report (in / out / thinking)', s.map((x) => (x.tokens.perReport === null ? '–' : `${x.tokens.perReport.input} / ${x.tokens.perReport.output} / ${x.tokens.perReport.thinking}`)))}
${row('held-out third: category / priority', s.map((x) => `${pct(x.splits.holdout?.category)} / ${pct(x.splits.holdout?.priority)}`))}
</tbody></table>`;
}

function confusion(run: RunPage): string {
  const { expected, answered, counts } = run.summary.confusion;
  const head = `<tr><th>expected \\ answered</th>${answered.map((a) => `<th>${esc(a)}</th>`).join('')}</tr>`;
  const body = expected
    .map((e, i) => {
      const cells = answered.map((a, j) => {
        const n = counts[i]?.[j] ?? 0;
        const cls = n === 0 ? '' : a === e ? ' class="hit"' : ' class="miss"';
        return `<td${cls}>${n}</td>`;
      });
      return `<tr><th>${esc(e)}</th>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<h2>Confusion matrix: ${esc(run.name)}</h2><table class="confusion" data-run="${esc(run.name)}"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function disagreements(run: RunPage): string {
  const rows = run.outcomes
    .filter((o) => !o.checks.category || !o.checks.priority || o.checks.forbidden === false)
    .map(
      (o) =>
        `<tr><td>${esc(o.id)}</td><td>${esc(o.split)}</td><td>${esc(o.expected.category)}</td><td>${esc(o.result?.category ?? o.error ?? '')}</td>` +
        `<td>${esc(o.expected.priorities.join(' | '))}</td><td>${esc(o.result?.priority ?? '')}</td><td>${esc(o.checks.hits.map((h) => `${h.field}: ${h.value}`).join('; '))}</td></tr>`,
    )
    .join('\n');
  return `<h2>Disagreements: ${esc(run.name)}</h2><table><thead><tr><th>case</th><th>split</th><th>category expected</th><th>answered</th><th>priorities accepted</th><th>answered</th><th>forbidden text found</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderHtml(page: { readonly generatedAt: string; readonly casesPath: string; readonly runs: readonly RunPage[]; readonly delta?: SummaryDelta }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Evaluation ${esc(page.generatedAt)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #bbb;padding:3px 8px;text-align:right}th{background:#f2f2f2}td.hit{background:#cfe8cf}td.miss{background:#f4cccc}</style>
</head><body>
<h1>Evaluation of the report generator</h1>
<p>${esc(page.generatedAt)}, cases from ${esc(page.casesPath)}. Method: eval/README.md.</p>
${figures(page.runs, page.delta)}
${page.runs.map(confusion).join('\n')}
${page.runs.map(disagreements).join('\n')}
</body></html>
`;
}
