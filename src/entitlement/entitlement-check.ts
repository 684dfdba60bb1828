// Product entitlement (spec section 5 item 8, rulings R19, R21): a row per customer and
// product, read on every request; a missing or inactive row is 403 product_not_entitled.
import type { MikroORM } from '@mikro-orm/postgresql';

export const PRODUCT = 'evidence_reports';

const QUERY = `select active from product_entitlement where customer_id = ? and product = ?`;

/** Throws on a database failure; the caller fails closed. */
export async function isEntitled(orm: MikroORM, customerId: string, product: string = PRODUCT): Promise<boolean> {
  const rows = await orm.em.fork().execute<{ active: boolean }[]>(QUERY, [customerId, product], 'all');
  return rows[0]?.active === true;
}
