// The conformance rig: client -> Prism 5 proxy -> tamper shim -> the real service. Shared by
// the two conformance files, one per proxy mode (see their header comments for why).
import { expect } from 'chai';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.ts';
import type { CustomerFixture } from '../../support/database.ts';
import { send, type SendOptions, type TestResponse } from '../../support/http-client.ts';
import { startConformanceService, type ConformanceService } from './conformance-service.ts';
import { describeViolations, prismVerdict, startPrism, type PrismProxy } from './prism.ts';
import { startTamperShim, type TamperShim } from './tamper-shim.ts';

export const REPORTS = '/v1/evidence/reports';
export const USAGE = '/v1/usage/current';

export interface PrismRig {
  readonly service: ConformanceService;
  readonly proxy: PrismProxy;
  /**
   * Sends through Prism and checks Prism's verdict: the answer is the service's own, no
   * response violation, and (when `requestMayBeFlagged` is false) no request violation either.
   */
  send(method: string, path: string, options?: SendOptions): Promise<TestResponse>;
  /** Fails when Prism's log shows a violation the headers did not (called before stopping). */
  checkLog(): Promise<void>;
  close(): Promise<void>;
}

export async function startPrismRig(mode: { errors: boolean; requestMayBeFlagged: boolean }, env: Record<string, string> = {}): Promise<PrismRig> {
  const service = await startConformanceService(env);
  let shim: TamperShim | undefined;
  try {
    shim = await startTamperShim(service.url);
    const proxy = await startPrism(shim.url, { errors: mode.errors });
    const opened = shim;
    return {
      service,
      proxy,
      async send(method, path, options = {}) {
        const res = await send(proxy.url, method, path, options);
        const verdict = prismVerdict(res.headers, res.text);
        expect(verdict.prismAnswer, 'Prism answered instead of the service').to.equal(undefined);
        expect(describeViolations(verdict.response), 'Prism: response violations').to.equal('');
        if (!mode.requestMayBeFlagged) expect(describeViolations(verdict.request), 'Prism: request violations').to.equal('');
        return res;
      },
      async checkLog() {
        // Prism writes its log asynchronously; give the last lines a moment to arrive.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const pattern = mode.requestMayBeFlagged ? /Violation: response/ : /Violation|Request terminated with error/;
        const lines = proxy.output().split('\n').filter((line) => pattern.test(line));
        expect(lines.join('\n'), 'Prism log').to.equal('');
      },
      async close() {
        await proxy.stop();
        await opened.close();
        await service.close();
      },
    };
  } catch (error) {
    await shim?.close();
    await service.close();
    throw error;
  }
}

export function expectCode(res: TestResponse, code: ErrorCode): void {
  const body = res.body as { error?: { code?: string } };
  expect(body.error?.code, `${res.status} ${res.text}`).to.equal(code);
  expect(res.status).to.equal(ERROR_CATALOGUE[code].status);
}

export function textBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { context: 'property_maintenance', evidence: { text }, ...extra };
}

export function withKey(customer: CustomerFixture, headers: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  return { 'x-api-key': customer.apiKey, ...headers };
}
