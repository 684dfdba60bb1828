// Preloaded with `--import` into a service process by tracing-off-loads-nothing.test.ts: logs
// to stderr every package under node_modules that the process loads, one line each, so a test
// can tell what was loaded without tracing or metrics. (module.registerHooks: synchronous
// hooks, run in the loading thread, Node 22.15 and later.)
import { registerHooks } from 'node:module';

const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
    if (match && !seen.has(match[1] as string)) {
      seen.add(match[1] as string);
      process.stderr.write(`loaded-package ${match[1]}\n`);
    }
    return resolved;
  },
});
