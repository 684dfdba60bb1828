// Product entitlement (spec section 5 item 8, rulings R19, R21): a row per customer and
// product, read on every request; a missing or inactive row is 403 product_not_entitled.
import { EVIDENCE_REPORTS_PRODUCT } from '../plans/product-entitlement.entity.ts';
import { statement, type Sql } from '../db/sql.ts';


const QUERY = statement('entitlement', `select active from product_entitlement where customer_id = $1 and product = $2`);

/** Throws on a database failure; the caller fails closed. */
export async function isEntitled(sql: Sql, customerId: string, product: string = EVIDENCE_REPORTS_PRODUCT): Promise<boolean> {
  const rows = await sql.rows<{ active: boolean }>(QUERY, [customerId, product]);
  return rows[0]?.active === true;
}
