// Reads a customer's stored reports back from the test database (fields never exposed by the API).
import { testEm } from '../database.ts';

/** R38: per image, the original's and the normalized form's facts, never bytes. */
export interface StoredImage {
  index: number;
  original: { sha256: string; sizeBytes: number; mimeType: string; width: number; height: number };
  normalized: { sizeBytes: number; mimeType: string; width: number; height: number };
}

export interface StoredReport {
  id: string;
  images: StoredImage[];
  result: Record<string, unknown>;
  generator: string;
  model: string | null;
  language: string | null;
  context: string;
}

export async function storedReports(customerId: string): Promise<StoredReport[]> {
  const em = await testEm();
  return em.execute<StoredReport[]>(
    'select id, images, result, generator, model, language, context from evidence_report where customer_id = ? order by created_at, id',
    [customerId],
  );
}

export async function storedReport(customerId: string, id: string): Promise<StoredReport> {
  const found = (await storedReports(customerId)).find((r) => r.id === id);
  if (found === undefined) throw new Error(`report ${id} is not stored`);
  return found;
}
