// A local stand-in for the Gemini REST API for the photo scenarios (R38): it answers
// `POST /v1beta/models/{model}:generateContent` as Gemini does in JSON mode, with a valid report,
// and keeps only the size of each request body (the test suite's recording fake keeps every
// body, which a bench run of hundreds of multi-MB requests must not).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const REPORT = {
  title: 'Water damage on the ceiling',
  description: 'The photos show a water stain spreading on the ceiling next to the light fitting.',
  category: 'plumbing',
  priority: 'high',
  suggestedNextStep: 'Send a plumber to find the leak above the ceiling.',
  tags: ['plumbing', 'leak'],
  riskFlags: ['water_damage'],
  confidence: 0.8,
};

const ANSWER = JSON.stringify({
  candidates: [{ content: { role: 'model', parts: [{ text: JSON.stringify(REPORT) }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 1290, candidatesTokenCount: 90, totalTokenCount: 1380 },
  modelVersion: 'bench-fake-gemini',
});

const GENERATE = /^\/v1beta\/models\/[^/:?]+:generateContent(?:\?.*)?$/;
/** models.get, which the service calls once per model of GEMINI_MODEL at start (R42). */
const GET_MODEL = /^\/v1beta\/models\/([^/:?]+)(?:\?.*)?$/;

export interface BenchGemini {
  readonly baseUrl: string;
  /** Request bodies received so far, and their bytes in all. */
  readonly stats: () => { requests: number; bodyBytes: number; maxBodyBytes: number };
  /** Starts counting anew (after a warm-up). */
  reset(): void;
  close(): Promise<void>;
}

export async function startBenchGemini(): Promise<BenchGemini> {
  let requests = 0;
  let bodyBytes = 0;
  let maxBodyBytes = 0;
  const server: Server = createServer((req, res) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    req.on('end', () => {
      const lookup = req.method === 'GET' ? GET_MODEL.exec(req.url ?? '') : null;
      if (lookup) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `models/${lookup[1]}`, supportedGenerationMethods: ['generateContent'] }));
        return;
      }
      if (req.method !== 'POST' || !GENERATE.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"status":"NOT_FOUND"}}');
        return;
      }
      requests++;
      bodyBytes += size;
      maxBodyBytes = Math.max(maxBodyBytes, size);
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stats: () => ({ requests, bodyBytes, maxBodyBytes }),
    reset: () => {
      requests = 0;
      bodyBytes = 0;
      maxBodyBytes = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
