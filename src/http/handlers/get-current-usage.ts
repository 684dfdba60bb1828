// Handler of operationId getCurrentUsage (spec 4.2): HTTP stops here; the use case knows no Koa.
import { currentUsage } from '../../usage/current-usage.ts';
import type { Operation } from '../api-front.ts';

export const getCurrentUsage: Operation = { handle: async ({ principal }) => ({ status: 200, body: currentUsage(principal) }) };
