// The same hand-written handler (support/baseline-handler.ts) on Fastify, so the
// bench shows what the framework alone changes. DATABASE_URL, PORT from the env.
import Fastify from 'fastify';
import { createBaselineHandler } from './support/baseline-handler.ts';
import { REPORTS_PATH } from './support/workload.ts';

const handler = createBaselineHandler(process.env.DATABASE_URL);
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
// The handler parses the body itself, as the Koa baseline does.
app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
app.get('/healthz', async () => ({ status: 'ok' }));
app.post(REPORTS_PATH, async (request, reply) => {
  const key = request.headers['x-api-key'];
  const answer = await handler.createReport(typeof key === 'string' ? key : '', async () => String(request.body ?? ''));
  return reply.code(answer.status).send(answer.body);
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app.close().then(() => handler.close()).then(() => process.exit(0));
});
