// Preloaded (`node --require`) by node-everywhere.test.ts: makes the process report the Node
// version, OS and CPU named in FAKE_NODE_VERSION, FAKE_PLATFORM and FAKE_ARCH, so the
// postinstall check (scripts/check-node.cjs) can be run as it would run on another machine.
'use strict';
const env = process.env;
if (env.FAKE_PLATFORM) Object.defineProperty(process, 'platform', { value: env.FAKE_PLATFORM });
if (env.FAKE_ARCH) Object.defineProperty(process, 'arch', { value: env.FAKE_ARCH });
if (env.FAKE_NODE_VERSION) {
  Object.defineProperty(process, 'versions', { value: { ...process.versions, node: env.FAKE_NODE_VERSION } });
  Object.defineProperty(process, 'version', { value: `v${env.FAKE_NODE_VERSION}` });
}
