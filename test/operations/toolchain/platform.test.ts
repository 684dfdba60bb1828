// Ruling R1: Node.js 24, ESM, TypeScript 5.9 in strict mode, engines.node >=24; ruling R3: one
// exact version for every @mikro-orm package. CI's typecheck proves the code compiles; this
// holds the settings themselves in place.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const pkg = read('package.json') as {
  type: string;
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('platform (R1, R3)', () => {
  it('runs on Node.js 24 or later, as engines.node says (R1)', () => {
    expect(pkg.engines.node).to.equal('>=24');
    expect(Number(process.versions.node.split('.')[0])).to.be.at.least(24);
  });

  it('is ESM with TypeScript 5.9, strict, noUncheckedIndexedAccess (R1)', () => {
    expect(pkg.type).to.equal('module');
    expect(pkg.devDependencies.typescript).to.match(/^5\.9\.\d+$/);
    const { compilerOptions } = read('tsconfig.json') as { compilerOptions: Record<string, unknown> };
    expect(compilerOptions).to.include({ strict: true, noUncheckedIndexedAccess: true, erasableSyntaxOnly: true });
  });

  it('pins every dependency exactly and every @mikro-orm package to one version (R3)', () => {
    const all = { ...pkg.dependencies, ...pkg.devDependencies };
    for (const [name, version] of Object.entries(all)) expect(version, name).to.match(/^\d+\.\d+\.\d+$/);
    const orm = Object.entries(all).filter(([name]) => name.startsWith('@mikro-orm/'));
    expect(orm.length).to.be.at.least(3);
    expect(new Set(orm.map(([, version]) => version)).size).to.equal(1);
  });
});
