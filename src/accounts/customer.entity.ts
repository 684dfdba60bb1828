// A customer owns keys, a plan subscription and entitlements (spec section 5, ruling R19:
// an inactive customer has only invalid keys).
import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

const CUSTOMER_STATUSES = ['active', 'inactive'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customer',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    name: p.text(),
    status: p.enum(CUSTOMER_STATUSES).onCreate(() => 'active' as const),
    createdAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
  },
});
export type Customer = InferEntity<typeof Customer>;
