// The namespace's only nameserver for R50's test (test/e2e/netns-dns): 127.0.0.1:53, swallowing
// every query but those for the names given on the command line (`node dns-blackhole.ts
// good.example.com`), which it answers 127.0.0.1. It runs as a process of its own (the service
// under test shares nothing with it) and prints `ready`, then one `query` line per query it
// swallowed.
import { startTestNameserver } from '../test-nameserver.ts';

await startTestNameserver({ port: 53, answers: process.argv.slice(2), onSwallowed: () => process.stdout.write('query\n') });
process.stdout.write('ready\n');
process.on('SIGTERM', () => process.exit(0));
