// Every entity, in one list for ORM discovery.
import { Customer } from '../accounts/customer.entity.ts';
import { ApiKey } from '../accounts/api-key.entity.ts';
import { Plan } from '../plans/plan.entity.ts';
import { Subscription } from '../plans/subscription.entity.ts';
import { ProductEntitlement } from '../plans/product-entitlement.entity.ts';
import { EvidenceReport } from '../reports/evidence-report.entity.ts';
import { UsageRecord } from '../usage/usage-record.entity.ts';
import { UsageCounter } from '../usage/usage-counter.entity.ts';
import { IdempotencyRecord } from '../idempotency/idempotency-record.entity.ts';
import { RateLimitCounter } from '../rate-limit/rate-limit-counter.entity.ts';

export const ENTITIES = [
  Customer,
  ApiKey,
  Plan,
  Subscription,
  ProductEntitlement,
  EvidenceReport,
  UsageRecord,
  UsageCounter,
  IdempotencyRecord,
  RateLimitCounter,
];
