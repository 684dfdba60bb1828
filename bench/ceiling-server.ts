// The machine's ceiling for the benchmark: a plain node:http server answering every request
// with one fixed JSON body the size of a report (no framework, no database). PORT from the env.
import { createServer } from 'node:http';
import { sampleReportBody } from './support/workload.ts';

const body = Buffer.from(sampleReportBody('00000000-0000-4000-8000-000000000000'));
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };

const server = createServer((req, res) => {
  // Drain any request body before answering, as a real handler would.
  req.resume();
  req.once('end', () => res.writeHead(200, headers).end(body));
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
