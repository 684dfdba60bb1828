// The throughput reference point: the hand-written handler (support/baseline-handler.ts) on Koa.
// It runs on the service's own database and customers, so the comparison is side by side.
// DATABASE_URL, PORT from the env.
import type { IncomingMessage } from 'node:http';
import Koa from 'koa';
import { createBaselineHandler } from './support/baseline-handler.ts';
import { REPORTS_PATH } from './support/workload.ts';

const handler = createBaselineHandler(process.env.DATABASE_URL);

async function readBody(req: IncomingMessage, max = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/healthz') {
    ctx.body = { status: 'ok' };
    return;
  }
  if (ctx.method !== 'POST' || ctx.path !== REPORTS_PATH) {
    ctx.status = 404;
    ctx.body = { error: { code: 'not_found' } };
    return;
  }
  const answer = await handler.createReport(ctx.get('x-api-key'), () => readBody(ctx.req));
  ctx.status = answer.status;
  ctx.body = answer.body;
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => void handler.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
