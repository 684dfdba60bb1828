// Product entitlement: one row per customer and product, active or not (ruling R19).
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from '../accounts/customer.entity.ts';

/** The product a customer must be entitled to before creating reports (ruling R19; R12 names it in the idempotency scope). */
export const EVIDENCE_REPORTS_PRODUCT = 'evidence_reports';

export const ProductEntitlement = defineEntity({
  name: 'ProductEntitlement',
  tableName: 'product_entitlement',
  properties: {
    customer: () => p.manyToOne(Customer).ref().primary(),
    product: p.text().primary(),
    active: p.boolean(),
    updatedAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()').onUpdate(() => new Date()),
  },
});
export type ProductEntitlement = InferEntity<typeof ProductEntitlement>;
