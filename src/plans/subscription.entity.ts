// A customer's active plan is its one active subscription (ruling R18). The partial unique
// index makes "one active subscription per customer" a database fact, not a hope.
import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from '../accounts/customer.entity.ts';
import { Plan } from './plan.entity.ts';

const SUBSCRIPTION_STATUSES = ['active', 'ended'] as const;

export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscription',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    customer: () => p.manyToOne(Customer).ref(),
    plan: () => p.manyToOne(Plan).ref().joinColumn('plan_code').index(),
    status: p.enum(SUBSCRIPTION_STATUSES).onCreate(() => 'active' as const),
    startedAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
    endedAt: p.datetime().nullable(),
  },
  uniques: [{ name: 'subscription_one_active_per_customer', properties: ['customer'], where: "status = 'active'" }],
  indexes: [{ name: 'subscription_customer_id_index', properties: ['customer'] }],
});
export type Subscription = InferEntity<typeof Subscription>;
