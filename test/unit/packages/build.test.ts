// The Package build: capabilities.yaml derived from tags, checks and literal calls; the
// build errors and warnings; the stored artifact through publish-local; deny-warnings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PackageError, parseCapabilities, PackageStore } from '../../../src/packages';
import { checkLocal, publishLocal, initProject, newPackage } from '../../../src/packages/local';
import { billingSources, manifest, tempDir, writeFiles, type FileMap } from '../../support/packages';

const options = (cwd: string, home: string, extra: Partial<Parameters<typeof checkLocal>[0]> = {}) => ({ cwd, home, denyWarnings: false, svcVersion: '0.0.0-test', ...extra });

function project(files: FileMap, name = '@acme/billing'): { root: string; home: string } {
  const root = writeFiles(tempDir(), { 'svc.toml': manifest([{ name, keywords: ['billing'] }]), ...files });
  return { root, home: tempDir('svc-home-') };
}

test('the billing sample derives provides and requires, builds with no warning, and publish-local writes the stored layout', () => {
  const { root, home } = project(billingSources());
  const { build, installed } = publishLocal(options(root, home));
  assert.deepEqual(build.warnings, []);
  const yaml = fs.readFileSync(path.join(root, 'capabilities.yaml'), 'utf8');
  assert.deepEqual(parseCapabilities(yaml), {
    namespace: 'acme',
    provides: [
      {
        name: 'acme.com/credits.apply',
        description: "Apply a credit to a customer's account.",
        fields: {
          amount: { type: 'number', description: 'Amount in cents, at most 100000.' },
          customerClass: { type: 'string' },
          customerId: { type: 'string', description: 'Customer to credit.' },
        },
      },
    ],
    requires: [
      { capability: 'http.post', filter: 'host == "billing.internal.example.com" and path == "/credits"' },
      { capability: 'secrets.get', filter: 'name == "BILLING_API_KEY"' },
    ],
  });
  const directory = path.join(home, 'packages', '@acme', 'billing');
  assert.equal(installed[0].directory, directory);
  for (const file of ['metadata.json', 'lib.js', 'lib.js.map', 'declarations.d.ts', 'capabilities.yaml', 'docs/readme.md']) assert.ok(fs.existsSync(path.join(directory, file)), file);
  const metadata = JSON.parse(fs.readFileSync(path.join(directory, 'metadata.json'), 'utf8'));
  assert.equal(metadata.schema_version, 1);
  assert.equal(metadata.package_name, '@acme/billing');
  assert.deepEqual(metadata.exports, { values: ['BillingError', 'applyCredit'], types: [] });
  assert.equal(metadata.source, undefined);
  const lib = fs.readFileSync(path.join(directory, 'lib.js'), 'utf8');
  assert.match(lib, /from "svc:http"/);
  assert.match(lib, /function classOf/, 'own relative sources are bundled in');
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(directory, 'lib.js.map'), 'utf8')).sources.sort(), ['@acme/billing/src/classes.ts', '@acme/billing/src/lib.ts']);
  assert.match(fs.readFileSync(path.join(directory, 'declarations.d.ts'), 'utf8'), /export declare function applyCredit\(customerId: string, amount: number\): number;/);
  // The store reads it back.
  const stored = new PackageStore(path.join(home, 'packages')).find('@acme/billing');
  assert.equal(stored?.metadata.package_version, '0.1.0');
  assert.equal(fs.readdirSync(path.join(home, 'packages')).filter((f) => f.startsWith('.')).length, 0, 'no staging directory left behind');
});

const lib = (body: string) => ({ 'docs/readme.md': '# x\n', 'src/lib.ts': `import { check } from "svc:security";\nimport { get, request } from "svc:http";\nimport * as fs from "svc:fs";\n${body}` });

function buildFails(files: FileMap, code: string, pattern: RegExp) {
  const { root, home } = project(files);
  assert.throws(() => checkLocal(options(root, home)), (error: unknown) => error instanceof PackageError && error.code === code && pattern.test(error.message));
}

function warningsOf(files: FileMap): string[] {
  const { root, home } = project(files);
  return checkLocal(options(root, home)).warnings;
}

test('build errors: a check payload key missing from the tag, a non-literal capability name, a syntax error, an npm import, no readme', () => {
  buildFails(lib('/**\n * D.\n * @param a A.\n * @capability x.com/a.b { a }\n */\nexport function f(a: string): void { check("x.com/a.b", { a, extra: 1 }); }\n'), 'build_failed', /lib\.ts:\d+:\d+: error: check\("x\.com\/a\.b"\) sends `extra`/);
  buildFails(lib('/**\n * D.\n * @param a A.\n */\nexport function f(a: string): void { check(a, {}); }\n'), 'build_failed', /needs a literal capability name/);
  buildFails(lib('export function f( {\n'), 'compile_failed', /@acme\/billing\/src\/lib\.ts:\d+:\d+: error:/);
  buildFails(lib('import left from "left-pad";\n/** D. */\nexport const x = left;\n'), 'compile_failed', /left-pad.*a Package may import `svc:` modules/s);
  buildFails({ 'src/lib.ts': '/** D. */\nexport const x = 1;\n' }, 'build_failed', /docs\/readme\.md is missing/);
});

test('a source outside src/ is refused: reached by a relative path or through a link, it would be bundled without its calls being analysed', () => {
  const outside = '/** D. */\nexport function leak(): Promise<unknown> { return get("https://elsewhere.example.com/x"); }\n';
  const importsOutside = lib('import { leak } from "../outside.ts";\n/** D. */\nexport const f = leak;\n');
  buildFails({ ...importsOutside, 'outside.ts': `import { get } from "svc:http";\n${outside}` }, 'compile_failed', /outside\.ts.*only files under src\//s);
  const { root, home } = project({ ...lib('import { leak } from "./linked.ts";\n/** D. */\nexport const f = leak;\n'), 'elsewhere/real.ts': `import { get } from "svc:http";\n${outside}` });
  fs.symlinkSync(path.join(root, 'elsewhere', 'real.ts'), path.join(root, 'src', 'linked.ts'));
  assert.throws(() => checkLocal(options(root, home)), (error: unknown) => error instanceof PackageError && error.code === 'compile_failed' && /only files under src\//.test(error.message));
});

test('build warnings, each once', () => {
  const warnings = warningsOf(
    lib(`const BASE = "https://api.example.com";
/**
 * Tag without check, a field missing from the payload and an unknown $param.
 * @param a A.
 * @capability x.com/none { a }
 * @capability x.com/some { a, b: string, c: $nope }
 */
export function f(a: string): void { check("x.com/some", { a }); }

/**
 * Check without tag, re-read after check, nested check, host from a parameter.
 * @param o O.
 * @param url U.
 * @wat unknown tag
 */
export function g(o: { id: string }, url: string): void {
  check("x.com/untagged", { id: o.id });
  get(o.id);
  [1].forEach(() => check("x.com/untagged", {}));
  get(url + "/x");
  get(BASE + "/items/" + o);
}

/**
 * Params out of order and no returns tag.
 * @param b B.
 * @param a A.
 */
export function h(a: number, b: number): number { return a + b; }

export function undocumented(): void {}

/** Type errors are warnings. */
export const wrong: number = "text";
`),
  );
  const expect = [
    /@capability x\.com\/none on `f` has no `check\("x\.com\/none", …\)`/,
    /check\("x\.com\/some"\) does not send `b`/,
    /`\$nope` names no parameter of `f`/,
    /check\("x\.com\/untagged"\) in `g` has no matching @capability tag/,
    /`o\.id` re-reads `o` after it reached check/,
    /inside a nested function/,
    /the host of this http\.get call comes from a parameter/,
    /unknown doc tag `@wat`/,
    /@param tags are out of order/,
    /`h`: add @returns/,
    /export `undocumented` has no doc comment/,
    /type error: Type 'string' is not assignable to type 'number'/,
  ];
  for (const pattern of expect) assert.ok(warnings.some((w) => pattern.test(w)), `missing warning ${pattern}:\n${warnings.join('\n')}`);
  assert.ok(warnings.every((w) => /^@acme\/billing\/src\/lib\.ts:\d+:\d+: warning: /.test(w)));
});

test("a Package is checked against the built-ins programs are: ES2024's are declared, the shared-memory globals the runtime removes are not", () => {
  const warnings = warningsOf(
    lib(`/**
 * Groups numbers by parity.
 * @param xs The numbers.
 * @returns The groups.
 */
export function groups(xs: number[]): Partial<Record<string, number[]>> { return Object.groupBy(xs, (x) => (x % 2 === 0 ? "even" : "odd")); }

/**
 * A shared buffer's size.
 * @returns Its length.
 */
export function shared(): number { return new SharedArrayBuffer(8).byteLength; }
`),
  );
  const typeErrors = warnings.filter((w) => / warning: type error: /.test(w));
  assert.equal(typeErrors.length, 1, warnings.join('\n'));
  assert.match(typeErrors[0], /SharedArrayBuffer/);
});

test('requires: host only for a partly literal URL, host for downloads, unfiltered fs, dependency-free; a literal request verb', () => {
  const { root, home } = project(
    lib(`const BASE = "https://API.Example.com";
/**
 * D.
 * @param id I.
 */
export function f(id: string): void {
  get(BASE + "/items/" + id);
  request("PUT", \`\${BASE}/put\`);
  fs.write("/tmp/x", "y");
}
`),
  );
  const { packages } = checkLocal(options(root, home));
  assert.deepEqual(packages[0].artifact.capabilities.requires, [
    { capability: 'fs.write' },
    { capability: 'http.get', filter: 'host == "api.example.com"' },
    { capability: 'http.put', filter: 'host == "api.example.com" and path == "/put"' },
  ]);
});

test('deny-warnings turns warnings into a failure that counts and lists them', () => {
  const { root, home } = project(lib('export function undocumented(): void {}\n'));
  assert.throws(
    () => checkLocal(options(root, home, { denyWarnings: true })),
    (error: unknown) => error instanceof PackageError && error.code === 'warnings_denied' && /^1 warning treated as errors:\n {2}@acme\/billing\/src\/lib\.ts:4:1: warning: export `undocumented`/.test(error.message) && error.warnings.length === 1,
  );
});

test('init scaffolds a project that checks clean; new adds a second Package under its own path', () => {
  const root = tempDir();
  const home = tempDir('svc-home-');
  initProject('@acme/first', root);
  assert.deepEqual(checkLocal(options(root, home)).warnings, []);
  assert.throws(() => newPackage('@acme/second', root), /give every existing \[\[package\]\] a `path` first/);
  const two = tempDir();
  fs.writeFileSync(path.join(two, 'svc.toml'), manifest([{ name: '@acme/first', path: 'first' }]));
  writeFiles(path.join(two, 'first'), lib('/** D. */\nexport const one = 1;\n'));
  newPackage('@acme/second', path.join(two, 'first'));
  const built = checkLocal(options(two, home));
  assert.deepEqual(built.packages.map((p) => p.entry.name), ['@acme/first', '@acme/second']);
});
