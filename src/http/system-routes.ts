// Plain routes outside the API contract (operator-interface.md "Health and operations"):
// liveness, readiness, the published contract and its API reference page, all without
// authentication.
import Router from '@koa/router';
import type Koa from 'koa';
import { ApiError } from '../errors/catalogue.ts';
import type { AppState } from './app-state.ts';
import type { Contract } from './contract.ts';
import { docsPage } from './docs-page.ts';

interface SystemRoutesOptions {
  contract: Contract;
  /** Resolves true when the database answers. */
  isReady: () => Promise<boolean>;
}

export function systemRoutes(options: SystemRoutesOptions): Koa.Middleware<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const ready = await options.isReady().catch(() => false);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'unavailable' };
  });
  router.get('/openapi.yaml', (ctx) => {
    ctx.type = 'application/yaml';
    ctx.body = options.contract.yaml;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = options.contract.json;
  });
  router.get('/docs', docsPage(undefined, options.contract.retentionHours));
  const routes = router.routes() as Koa.Middleware<AppState>;
  // A known system path with another method is a 405 in the envelope (ruling R9) with the
  // methods it has in Allow (RFC 9110 15.5.6); unknown paths fall through to the API, whose
  // router answers 404 not_found.
  return async (ctx, next) => {
    const matched = router.match(ctx.path, ctx.method);
    if (matched.path.length > 0 && !matched.route) {
      const methods = new Set(matched.path.flatMap((layer) => layer.methods));
      throw new ApiError('method_not_allowed', { headers: { allow: [...methods].join(', ') } });
    }
    return routes(ctx, next);
  };
}
