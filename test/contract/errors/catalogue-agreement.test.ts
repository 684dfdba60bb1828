// The catalogue, the contract's ErrorCode enum and the specification's tables agree in both
// directions: codes, statuses and every fixed message to the letter (R9, R10).
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.ts';
import { contractDocument, errorCodesOf, resolve } from '../../support/contract-validator.ts';

const SPEC_IN_REPO = new URL('../../../docs/spec/evidence-report-service.md', import.meta.url);
const spec = readFileSync(SPEC_IN_REPO, 'utf8');

const codeRows = [...spec.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => ({ status: Number(m[1]), code: m[2] as string }));
const messageRows = [...spec.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*([^|]+?)\s*\|\s*$/gm)].map((m) => ({ code: m[1] as string, message: m[2] as string }));
// Ruling R9 adds the two routing codes the specification's table does not list, R54 the 404 of
// reading a report back.
const RULING_CODES: Record<string, number> = { not_found: 404, method_not_allowed: 405, evidence_report_not_found: 404 };

type Json = Record<string, unknown>;
const schemas = (contractDocument.components as Json).schemas as Record<string, Json>;
const contractEnum = schemas.ErrorCode?.enum as string[];

describe('error catalogue agreement (R9, R10)', () => {
  it('reads 28 codes and 23 fixed messages from the specification (the parser itself works)', () => {
    expect(codeRows).to.have.length(28);
    expect(messageRows).to.have.length(23);
  });

  it('the catalogue has exactly the specification codes plus the R9 routing codes', () => {
    const expected = [...codeRows.map((r) => r.code), ...Object.keys(RULING_CODES)].sort();
    expect(Object.keys(ERROR_CATALOGUE).sort()).to.deep.equal(expected);
  });

  it("the contract's ErrorCode enum has exactly the catalogue's codes", () => {
    expect([...contractEnum].sort()).to.deep.equal(Object.keys(ERROR_CATALOGUE).sort());
  });

  it('every code has the status of the specification (or of R9)', () => {
    for (const { code, status } of codeRows) expect(ERROR_CATALOGUE[code as ErrorCode].status, code).to.equal(status);
    for (const [code, status] of Object.entries(RULING_CODES)) expect(ERROR_CATALOGUE[code as ErrorCode].status).to.equal(status);
  });

  it('every fixed message is used to the letter (R10)', () => {
    for (const { code, message } of messageRows) expect(ERROR_CATALOGUE[code as ErrorCode].message, code).to.equal(message);
  });

  it('evidence_report_not_found has the fixed text of R54, to the letter', () => {
    const rulings = readFileSync(new URL('../../../docs/spec/decisions.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const fixed = /`evidence_report_not_found` \("([^"]+)"\)/.exec(rulings)?.[1];
    expect(fixed).to.equal('The evidence report was not found.');
    expect(ERROR_CATALOGUE.evidence_report_not_found.message).to.equal(fixed);
  });

  it('codes without a fixed text have a short plain message that reveals nothing internal (R10)', () => {
    const fixed = new Set(messageRows.map((r) => r.code));
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      if (fixed.has(code)) continue;
      expect(entry.message, code).to.match(/^[A-Z][^<>{}]{10,110}\.$/);
      expect(entry.message.toLowerCase(), code).not.to.match(/database|postgres|sql|redis|gemini|stack|exception|timeout/);
    }
  });

  it("each operation's error responses: the documented code enum equals the examples' codes, all of that status, with catalogue messages", () => {
    const paths = contractDocument.paths as Record<string, Record<string, Json>>;
    let responses = 0;
    for (const operations of Object.values(paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          if (Number(status) < 400) continue;
          const media = (resolve(response).content as Record<string, Json>)['application/json'] as Json;
          const examples = Object.values(media.examples as Record<string, Json>).map(
            (example) => (example.value as { error: { code: ErrorCode; message: string } }).error,
          );
          expect(examples.map((e) => e.code).sort(), `${operation.operationId} ${status}`).to.deep.equal(errorCodesOf(media.schema as Json).sort());
          for (const error of examples) {
            expect(ERROR_CATALOGUE[error.code].status, `${status} ${error.code}`).to.equal(Number(status));
            expect(error.message, error.code).to.equal(ERROR_CATALOGUE[error.code].message);
          }
          responses++;
        }
      }
    }
    // POST: 400 401 403 409 422 429 500 502 503; GET usage: 401 403 500 503; GET report (R54): 401 403 404 500 503.
    expect(responses).to.equal(18);
  });
});
