// Reads back what the Gemini adapter sent, from the fake's request log (REST field names).
import type { FakeGeminiRequest } from './fake-gemini-server.ts';

export interface SentPart {
  text?: string;
  inlineData?: { mimeType: string; data: string };
}

export interface SentBody {
  contents: { role: string; parts: SentPart[] }[];
  systemInstruction: { parts: { text: string }[] };
  generationConfig: { responseMimeType: string; responseSchema: unknown; [key: string]: unknown };
}

export function sentBody(request: FakeGeminiRequest | undefined): SentBody {
  if (request === undefined) throw new Error('no request reached the fake Gemini');
  return request.body as SentBody;
}

/** The request data JSON document of the user turn (its first part, after the heading line). */
export function sentData(request: FakeGeminiRequest | undefined): Record<string, unknown> {
  const text = sentBody(request).contents[0]?.parts[0]?.text ?? '';
  return JSON.parse(text.slice(text.indexOf('\n') + 1)) as Record<string, unknown>;
}

/** The inline images the request carried (base64 and MIME type), in order. */
export function sentImages(request: FakeGeminiRequest | undefined): NonNullable<SentPart['inlineData']>[] {
  return sentBody(request)
    .contents.flatMap((content) => content.parts)
    .flatMap((part) => (part.inlineData ? [part.inlineData] : []));
}

export function sentSystemInstruction(request: FakeGeminiRequest | undefined): string {
  return sentBody(request).systemInstruction.parts.map((part) => part.text).join('');
}
