// Handler of operationId getCurrentUsage (spec 4.2): HTTP stops here; the use case knows no Koa.
import { currentUsage } from '../../usage/current-usage.ts';
import type { OperationHandler } from '../openapi-bridge.ts';

export const getCurrentUsage: OperationHandler = async ({ principal }) => ({ status: 200, body: currentUsage(principal) });
