// A small HTTP client for the tests, on node:http so that a test can send exactly what it
// means: repeated headers, no content type, raw bytes, a lying length. Every response it sees
// is checked against the contract (contract-validator.ts).
import { request, type Agent } from 'node:http';
import { recordResponse } from './contract-validator.ts';

export interface SendOptions {
  headers?: Record<string, string | string[]>;
  /** An object is sent as JSON with content-type application/json unless headers say otherwise. */
  body?: unknown;
  raw?: Buffer | string;
  /** Send the body with chunked transfer coding (no content-length), in 64 KiB writes. */
  chunked?: boolean;
  /** A keep-alive agent, for load that reuses connections as real clients do; default none. */
  agent?: Agent;
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export async function send<T = unknown>(baseUrl: string, method: string, path: string, options: SendOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string | string[]> = { ...options.headers };
  let payload: Buffer | undefined;
  if (options.raw !== undefined) payload = Buffer.from(options.raw);
  else if (options.body !== undefined) {
    payload = Buffer.from(JSON.stringify(options.body));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  // Frame every body, whatever the method (node:http would send a GET body unframed).
  const framed = Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()));
  if (payload !== undefined && !framed && !options.chunked) {
    headers['content-length'] = String(payload.length);
  }
  const url = new URL(path, baseUrl);
  const response = await new Promise<TestResponse<T>>((resolve, reject) => {
    const req = request(url, { method, headers, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        if ((res.headers['content-type'] ?? '').includes('json') && text !== '') body = JSON.parse(text);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body as T, text });
      });
    });
    req.on('error', reject);
    if (options.chunked && payload !== undefined) {
      for (let at = 0; at < payload.length; at += 65_536) req.write(payload.subarray(at, at + 65_536));
      req.end();
    } else {
      req.end(payload);
    }
  });
  recordResponse({ method, path: url.pathname, status: response.status, headers: response.headers, body: response.body });
  return response;
}

/** Shorthand for the two operations with a key. */
export function client(baseUrl: string, apiKey: string) {
  return {
    createReport: <T = unknown>(body: unknown, headers: Record<string, string | string[]> = {}) =>
      send<T>(baseUrl, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': apiKey, ...headers } }),
    currentUsage: <T = unknown>(headers: Record<string, string | string[]> = {}) =>
      send<T>(baseUrl, 'GET', '/v1/usage/current', { headers: { 'x-api-key': apiKey, ...headers } }),
  };
}
