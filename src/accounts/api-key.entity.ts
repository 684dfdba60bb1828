// API keys (ruling R26): only the SHA-256 of the key and a display prefix are stored.
import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from './customer.entity.ts';
import { MODES } from './mode.ts';

const API_KEY_STATUSES = ['active', 'inactive', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    customer: () => p.manyToOne(Customer).ref().index(),
    name: p.text().nullable(),
    // Hex SHA-256 of the full key: authentication is one unique-index lookup.
    keyHash: p.character().length(64).unique(),
    prefix: p.text(),
    /** R53: live or test, fixed at creation and written in the key's prefix. */
    mode: p.enum(MODES).default('live'),
    status: p.enum(API_KEY_STATUSES).onCreate(() => 'active' as const),
    createdAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
