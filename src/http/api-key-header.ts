// Reads the credential from the x-api-key header only (never the query string), ruling R5:
// absent or blank -> 401 missing_api_key; sent more than once -> 401 invalid_api_key.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/catalogue.ts';

export function readApiKey(req: IncomingMessage): string {
  // headersDistinct keeps repeated headers apart; req.headers would join them with ", ".
  const values = req.headersDistinct['x-api-key'] ?? [];
  if (values.length > 1) throw new ApiError('invalid_api_key');
  const key = values[0]?.trim() ?? '';
  if (key === '') throw new ApiError('missing_api_key');
  return key;
}
