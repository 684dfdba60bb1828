// A local OTLP/HTTP trace sink for the tracing scenario (R41): it accepts every export on
// POST /v1/traces, answers 200 as a collector does, and counts requests, bytes and the traces
// that arrived (each POST trace carries its server span's name once, as UTF-8 in the protobuf).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const MARKER = Buffer.from('POST /v1/evidence/reports');

export interface OtlpSink {
  readonly endpoint: string;
  /** Exports received, their bytes, and the POST traces in them. */
  figures(): { exports: number; bytes: number; postTraces: number };
  close(): Promise<void>;
}

function occurrences(body: Buffer, marker: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(marker); at !== -1; at = body.indexOf(marker, at + marker.length)) count++;
  return count;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  let bytes = 0;
  let postTraces = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      exports++;
      bytes += body.length;
      postTraces += occurrences(body, MARKER);
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    figures: () => ({ exports, bytes, postTraces }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
