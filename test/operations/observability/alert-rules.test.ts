// R40: the alert rules an on-call engineer needs (ops/prometheus/alerts.yml) are
// valid (`promtool check rules`), behave as their unit tests on synthetic series say (`promtool
// test rules`, a firing and a quiet case for every alert), read only metrics the service
// exports, and each has a summary, a description and a runbook section in ops/README.md.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ServiceMetrics } from '../../../src/observability/metrics.ts';
import { promtool } from '../../support/observability/prometheus.ts';

const OPS = fileURLToPath(new URL('../../../ops/', import.meta.url));
const RULES = join(OPS, 'prometheus/alerts.yml');
const TESTS = join(OPS, 'prometheus/alerts.test.yml');

interface Rule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}
interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}

const rules = (): Rule[] => (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

describe('alert rules (ops/prometheus/alerts.yml)', function () {
  this.timeout(60_000);

  it('promtool check rules: the file is valid', () => {
    const run = promtool(['check', 'rules', RULES]);
    expect(run.status, run.output).to.equal(0);
    expect(run.output).to.include(`SUCCESS: ${rules().length} rules found`);
  });

  it('promtool test rules: every unit test on synthetic series passes', () => {
    const run = promtool(['test', 'rules', TESTS]);
    expect(run.status, run.output).to.equal(0);
    expect(run.output).to.include('SUCCESS');
  });

  it('the unit tests can fail: a rule whose threshold is changed breaks them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ers-alerts-'));
    try {
      writeFileSync(join(dir, 'alerts.yml'), readFileSync(RULES, 'utf8').replace('> 0.05', '> 0.5'));
      writeFileSync(join(dir, 'alerts.test.yml'), readFileSync(TESTS, 'utf8'));
      const run = promtool(['test', 'rules', join(dir, 'alerts.test.yml')]);
      expect(run.status).not.to.equal(0);
      expect(run.output).to.include('ErsServerErrorRatioHigh');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every alert an on-call engineer needs is there: 5xx ratio by code, fail-closed database and store, generator unavailable and slow, images unavailable, pool waiting and saturated, instance down', () => {
    expect(rules().map((r) => r.alert)).to.have.members([
      'ErsServerErrorRatioHigh',
      'ErsDatabaseFailClosed',
      'ErsRateLimitStoreFailClosed',
      'ErsGeneratorUnavailable',
      'ErsGeneratorSlow',
      'ErsGeneratorPrimaryModelNotFound',
      'ErsGeneratorFallingBack',
      'ErsImageFetchesUnavailable',
      'ErsDbPoolWaiting',
      'ErsDbPoolSaturated',
      'ErsInstanceDown',
      'ErsAdmissionRejectionsPersist',
    ]);
  });

  it('every alert is unit-tested both firing and quiet', () => {
    const cases = (parse(readFileSync(TESTS, 'utf8')) as { tests: RuleTest[] }).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const { alert } of rules()) {
      const own = cases.filter((c) => c.alertname === alert);
      expect(own.some((c) => (c.exp_alerts ?? []).length > 0), `${alert} fires in a test`).to.equal(true);
      expect(own.some((c) => (c.exp_alerts ?? []).length === 0), `${alert} stays quiet in a test`).to.equal(true);
    }
  });

  it('every alert has a summary, a description and a runbook section in ops/README.md', () => {
    const runbook = readFileSync(join(OPS, 'README.md'), 'utf8');
    for (const { alert, annotations } of rules()) {
      expect(annotations?.summary, `${alert} summary`).to.be.a('string').and.not.equal('');
      expect(annotations?.description, `${alert} description`).to.be.a('string').and.not.equal('');
      expect(annotations?.runbook).to.equal(`ops/README.md#${alert.toLowerCase()}`);
      expect(runbook, `a "### ${alert}" section`).to.match(new RegExp(`^### ${alert}$`, 'm'));
    }
  });

  it('the rules read only metrics the service exports (and Prometheus\'s own up)', async () => {
    const metrics = new ServiceMetrics({ generator: 'gemini', models: ['gemini-3.8-flash', 'gemini-3.7-flash'], pool: { totalCount: 0, idleCount: 0, waitingCount: 0 }, poolMax: 10, imageBudget: { used: 0 } });
    // The families the registry declares (a counter without events has no sample yet).
    const families = [...(await metrics.exposition()).matchAll(/^# TYPE (\S+) (\S+)$/gm)];
    const exported = new Set(families.flatMap(([, name, type]) => (type === 'histogram' ? ['_bucket', '_count', '_sum'].map((s) => `${name}${s}`) : [name as string])));
    const used = new Set(rules().flatMap((r) => [...r.expr.matchAll(/\b(ers_[a-z_]+|up)\b/g)].map((m) => m[1] as string)));
    expect(used.size).to.be.greaterThan(5);
    for (const name of used) {
      if (name === 'up') continue;
      expect(exported.has(name), `${name} is not exported`).to.equal(true);
    }
  });
});
