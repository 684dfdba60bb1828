// Handler of operationId getCurrentUsage (spec 4.2): HTTP stops here; the use case knows no Koa.
import type { CurrentUsageQuery } from '../../usage/current-usage.ts';
import type { OperationHandler } from '../openapi-bridge.ts';

export function getCurrentUsage(query: CurrentUsageQuery): OperationHandler {
  return async ({ principal }) => ({ status: 200, body: await query.forCustomer(principal.customerId) });
}
