// Catalogue plans (ruling R18): a monthly limit for `evidence_report` and whether the
// customer may read its usage.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Plan = defineEntity({
  name: 'Plan',
  tableName: 'plan',
  properties: {
    code: p.text().primary(),
    monthlyLimit: p.integer().check('monthly_limit >= 0'),
    usageVisible: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
  },
});
export type Plan = InferEntity<typeof Plan>;
