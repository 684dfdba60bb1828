// Step 4: the product entitlement (spec section 5 item 8, ruling R19), judged from the fact
// step 1 read with the key (one statement): 403 product_not_entitled; a fact that could not be read
// fails closed with 503 entitlement_check_unavailable.
import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../errors/catalogue.ts';

export function checkEntitlement(principal: Principal): void {
  if (!principal.entitled.readable) throw new ApiError('entitlement_check_unavailable');
  if (!principal.entitled.value) throw new ApiError('product_not_entitled');
}
