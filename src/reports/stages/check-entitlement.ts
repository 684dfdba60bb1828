// Step 4: the product entitlement (spec section 5 item 8, ruling R19): 403
// product_not_entitled; an evaluation that cannot complete fails closed with 503.
import type { Sql } from '../../db/sql.ts';
import { isEntitled } from '../../entitlement/entitlement-check.ts';
import { ApiError } from '../../errors/catalogue.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

export function checkEntitlement(sql: Sql): Stage {
  return {
    step: '4. product entitlement',
    async run(state: PipelineState) {
      let entitled: boolean;
      try {
        entitled = await isEntitled(sql, state.principal.customerId);
      } catch (cause) {
        throw new ApiError('entitlement_check_unavailable', { cause });
      }
      if (!entitled) throw new ApiError('product_not_entitled');
    },
  };
}
