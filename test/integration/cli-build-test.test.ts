// `svc build test` and local `svc run` with Packages, through the real `bin/svc`:
// test programs import the Package by name and run with every call and check allowed
// (checks printed), labels name the tests, secrets come only from --env-var/--env-file,
// network tests can be skipped, readme fences are compiled, failures set exit 1, and
// --publish-local installs the tested build only when every test passed.
// One `svc build test` and `svc install` (it trusts the code host's CA from NODE_EXTRA_CA_CERTS)
// run as processes; the other commands, about what the command prints and returns, run
// in-process (svcInProcess): one checker and one Node start serve them all.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../harness';
import { runSvc, svcInProcess, type SvcResult } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';

const greetSources = (extraReadme = '') => ({
  'svc.toml': manifest([{ name: '@acme/greet' }]),
  'docs/readme.md': `# greet\n\n\`\`\`ts\nimport { greet } from "@acme/greet";\nconst text = greet("ann");\n\`\`\`\n${extraReadme}`,
  'src/lib.ts': `import { check } from "svc:security";
import secrets from "svc:secrets";

/** Errors of greet. */
export class GreetError extends Error {
  constructor(public code: string, message: string) { super(message); this.name = "GreetError"; }
}

/**
 * Greets someone, signed with the key's length.
 * @param who Name to greet.
 * @returns The greeting.
 * @capability acme.com/greet { who }
 */
export function greet(who: string): string {
  check("acme.com/greet", { who });
  const key = secrets.get("GREET_KEY");
  if (key == null) throw new GreetError("missing_token", "bind GREET_KEY");
  return "hello " + who + " (" + key.length + ")";
}
`,
  'tests/greet.test.ts': `import { label, expectException } from "svc:test";
import { greet, GreetError } from "@acme/greet";
export function main() {
  label("greets with the key");
  assert(greet("ann") === "hello ann (6)", "unexpected greeting");
  const e = expectException(() => { throw new GreetError("x", "y"); }, "GreetError");
  assert((e as GreetError).code === "x");
}
`,
  'tests/network-live.test.ts': 'export function main() { throw new Error("network test ran"); }\n',
});

/** An SVC_HOME with @acme/greet published by the real `svc build publish-local`, made once for the tests that only read it. */
let greetHome: Promise<string> | undefined;
function publishedGreet(): Promise<string> {
  greetHome ??= (async () => {
    const home = tempDir();
    const project = writeFiles(tempDir(), greetSources());
    const published = await svcInProcess(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /^published @acme\/greet 0\.1\.0 to /m);
    return home;
  })();
  return greetHome;
}

describe('svc build test', () => {
  // The published home the later blocks read is made while this block runs (they await it;
  // a failure is reported there).
  before(() => {
    publishedGreet().catch(() => undefined);
  });

  test('runs the tests with the secret from --env-var, prints each check, compiles the readme, exit 0; --publish-local then installs the tested Package', async () => {
    const project = writeFiles(tempDir(), greetSources());
    const home = tempDir();
    const result = await runSvc(['build', 'test', '--skip-network', '--env-var', 'GREET_KEY', '--publish-local'], { cwd: project, env: { SVC_HOME: home, GREET_KEY: 'abcdef' } });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^ok {3}tests\/greet\.test\.ts — greets with the key$/m);
    assert.match(result.stdout, /\[security\] caller=main capability=acme\.com\/greet context=\{"who":"ann"\}/);
    assert.match(result.stdout, /^ok {3}example 1 \(compile\)$/m);
    assert.doesNotMatch(result.stdout, /network-live/);
    assert.match(result.stdout, /^2 passed, 0 failed\npublished @acme\/greet 0\.1\.0 to /m);
    assert.ok(fs.existsSync(path.join(home, 'packages', '@acme', 'greet', 'capabilities.yaml')), 'the tested Package is not in $SVC_HOME/packages');
  });

  // One project with a failure of every kind, run twice: checked, with its network tests and
  // without the secret; unchecked, without network tests, with the secret from an env file.
  const typeErrorFence = '\n```ts\nimport { greet } from "@acme/greet";\nconst text = greet(42);\n```\n';
  const badImportFence = '\n```ts\nimport { nothing } from "@acme/other";\n```\n';
  let project: string;
  let checked: SvcResult;
  let checkedHome: string;
  let unchecked: SvcResult;
  before(async () => {
    project = writeFiles(tempDir(), {
      ...greetSources(`${badImportFence}${typeErrorFence}`),
      'tests/typo.test.ts': 'import { greet } from "@acme/greet";\nexport function main() { return greet("ann").toUpperCas(); }\n',
      '.env': '# test secrets\nGREET_KEY="abcdef"\n',
    });
    // Two commands of their own homes: they run at once.
    checkedHome = tempDir();
    [checked, unchecked] = await Promise.all([
      svcInProcess(['build', 'test', '--publish-local'], { cwd: project, env: { SVC_HOME: checkedHome, GREET_KEY: 'not-passed' } }),
      svcInProcess(['build', 'test', '--skip-network', '--env-file', '.env', '--typecheck', 'off'], { cwd: project, env: { SVC_HOME: tempDir() } }),
    ]);
  });

  test('without the secret the Package throws its own error; network tests run unless skipped; a bad fence fails; exit 1, nothing published', () => {
    assert.equal(checked.code, 1, checked.stdout + checked.stderr);
    assert.doesNotMatch(checked.stdout, /^published /m);
    assert.ok(!fs.existsSync(path.join(checkedHome, 'packages', '@acme', 'greet')), '--publish-local installed a Package whose tests failed');
    assert.match(checked.stdout, /^FAIL tests\/greet\.test\.ts — greets with the key\n {4}GreetError: bind GREET_KEY/m);
    assert.match(checked.stdout, /^FAIL tests\/network-live\.test\.ts\n {4}Error: network test ran/m);
    assert.match(checked.stdout, /^FAIL example 2 \(compile\)\n[\s\S]*?cannot import `@acme\/other`/m);
    assert.match(checked.stdout, /^1 passed, 5 failed$/m);
  });

  test('readme examples and test programs are type-checked; --typecheck off keeps the old behaviour', async () => {
    assert.match(checked.stdout, /^FAIL tests\/typo\.test\.ts\n[\s\S]*?Property 'toUpperCas' does not exist on type 'string'[\s\S]*?help: did you mean `toUpperCase`\?/m);
    assert.match(checked.stdout, /^FAIL example 3 \(compile\)\n[\s\S]*?Argument of type 'number' is not assignable to parameter of type 'string'/m);
    assert.match(checked.stdout, /^ok {3}example 1 \(compile\)$/m);
    assert.match(unchecked.stdout, /^ok {3}example 3 \(compile\)$/m);
    assert.match(unchecked.stdout, /^FAIL tests\/typo\.test\.ts\n {4}TypeError: .*toUpperCas is not a function/m);
    const usage = await svcInProcess(['build', 'test', '--typecheck', 'sometimes'], { cwd: project, env: { SVC_HOME: tempDir() } });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--typecheck: unknown mode 'sometimes'; expected strict, on or off/);
  });

  test('--env-file supplies secrets; --env-var naming an unset variable is a usage error', async () => {
    assert.match(unchecked.stdout, /^ok {3}tests\/greet\.test\.ts — greets with the key$/m);
    assert.doesNotMatch(unchecked.stdout, /network-live/);
    const usage = await svcInProcess(['build', 'test', '--env-var', 'NOT_SET_ANYWHERE'], { cwd: project, env: { SVC_HOME: tempDir() } });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /NOT_SET_ANYWHERE is not set/);
  });
});

describe('svc run (local) with Packages', () => {
  test('a Blueprint file listing a published Package runs it from $SVC_HOME/packages; an unpublished one is package_resolution (exit 3)', async () => {
    const home = await publishedGreet();
    const work = writeFiles(tempDir(), {
      'bp.yaml': 'name: local\ndefault: deny\npackages: ["@acme/greet"]\nsecrets:\n  GREET_KEY:\n    harness: {}\npermissions:\n  "@acme/greet":\n    - capability: secrets.get\n      action: allow\n  main:\n    - capability: acme.com/greet\n      filter: who == "bo"\n      action: allow\n',
      'program.ts': 'import { greet } from "@acme/greet";\nexport function main() { return greet("bo"); }\n',
    });
    const [ran, missing] = await Promise.all([
      svcInProcess(['run', 'program.ts', '--blueprint', 'bp.yaml', '--secret', 'GREET_KEY'], { cwd: work, env: { SVC_HOME: home, GREET_KEY: 'k1' } }),
      svcInProcess(['run', 'program.ts', '--blueprint', 'bp.yaml', '--secret', 'GREET_KEY'], { cwd: work, env: { SVC_HOME: tempDir(), GREET_KEY: 'k1' } }),
    ]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout, 'hello bo (2)\n');
    assert.equal(missing.code, 3, missing.stderr);
    assert.match(missing.stderr, /package '@acme\/greet' is not installed/);
  });

  test('the Blueprint file\'s typecheck decides whether a wrong call is refused before it runs', async () => {
    const home = await publishedGreet();
    const blueprint = (extra: string) => `name: local\ndefault: allow\npackages: ["@acme/greet"]\nsecrets:\n  GREET_KEY:\n    harness: {}\n${extra}`;
    const work = writeFiles(tempDir(), { 'on.yaml': blueprint(''), 'off.yaml': blueprint('typecheck: off\n'), 'program.ts': 'import { greet } from "@acme/greet";\nexport function main() { return greet(7); }\n' });
    const [refused, ran] = await Promise.all(
      ['on.yaml', 'off.yaml'].map((blueprintFile) => svcInProcess(['run', 'program.ts', '--blueprint', blueprintFile, '--secret', 'GREET_KEY'], { cwd: work, env: { SVC_HOME: home, GREET_KEY: 'k1' } })),
    );
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /program\.ts:2:39: error: Argument of type 'number' is not assignable to parameter of type 'string'/);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout, 'hello 7 (2)\n');
  });
});

describe('svc blueprint add-package', () => {
  test('lists the Package, allows its derived requires under its caller, grants main only what is asked, warns about undeclared secrets', async () => {
    const home = await publishedGreet();
    const work = writeFiles(tempDir(), { 'bp.yaml': '# the support agent\nname: support\ndefault: deny\n' });
    const added = await svcInProcess(['blueprint', 'add-package', '@acme/greet', '-f', 'bp.yaml'], { cwd: work, env: { SVC_HOME: home } });
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /Listed @acme\/greet in bp\.yaml/);
    assert.match(added.stderr, /reads secret GREET_KEY, which bp\.yaml does not declare/);
    const text = fs.readFileSync(path.join(work, 'bp.yaml'), 'utf8');
    assert.match(text, /^# the support agent/);
    const doc = (await import('yaml')).parse(text);
    assert.deepEqual(doc.packages, ['@acme/greet']);
    assert.deepEqual(doc.permissions['@acme/greet'], [{ capability: 'secrets.get', filter: 'name == "GREET_KEY"', action: 'allow' }]);
    assert.equal(doc.permissions.main, undefined);
    const granted = await svcInProcess(['blueprint', 'add-package', '@acme/greet', '-f', 'bp.yaml', '--capabilities', 'acme.com/greet'], { cwd: work, env: { SVC_HOME: home } });
    assert.equal(granted.code, 0, granted.stderr);
    assert.match(granted.stdout, /already listed/);
    const again = (await import('yaml')).parse(fs.readFileSync(path.join(work, 'bp.yaml'), 'utf8'));
    assert.deepEqual(again.permissions.main, [{ capability: 'acme.com/greet', action: 'allow' }]);
    assert.equal(again.permissions['@acme/greet'].length, 1);
    const unknown = await svcInProcess(['blueprint', 'add-package', '@acme/greet', '-f', 'bp.yaml', '--capabilities', 'acme.com/nope'], { cwd: work, env: { SVC_HOME: home } });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /does not provide acme\.com\/nope; it provides: acme\.com\/greet/);
    const missing = await svcInProcess(['blueprint', 'add-package', '@acme/absent', '-f', 'bp.yaml'], { cwd: work, env: { SVC_HOME: home } });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /package '@acme\/absent' is not installed/);
  });
});

describe('svc.lock', () => {
  test('a project with a repository dependency locks the installed commit and digest; a lock the store no longer matches is refused', async () => {
    const { startCodeHost } = await import('../support/code-host');
    const host = await startCodeHost(tempDir());
    try {
      const home = tempDir();
      const util = host.addCommit('acme/tools', ['main'], {
        'svc.toml': manifest([{ name: '@acme/util' }]),
        'docs/readme.md': '# util\n',
        'src/lib.ts': '/**\n * Doubles.\n * @param n A number.\n * @returns Twice n.\n */\nexport function double(n: number): number {\n  return n * 2;\n}\n',
      });
      const env = { SVC_HOME: home, SVC_GITHUB_API_URL: host.url, NODE_EXTRA_CA_CERTS: host.certFile };
      const installed = await runSvc(['install', `acme/tools@${util.sha}`, '@acme/util'], { cwd: tempDir(), env });
      assert.equal(installed.code, 0, installed.stderr);
      const project = writeFiles(tempDir(), {
        'svc.toml': manifest([{ name: '@acme/app', dependencies: ['@acme/util'] }], `\n[dependencies]\n"@acme/util" = { github = "github.com/acme/tools", rev = "${util.sha}" }\n`),
        'docs/readme.md': '# app\n',
        'src/lib.ts': 'import { double } from "@acme/util";\n/**\n * Quadruples.\n * @param n A number.\n * @returns Four times n.\n */\nexport function quad(n: number): number {\n  return double(double(n));\n}\n',
      });
      const checked = await svcInProcess(['build', 'check'], { cwd: project, env });
      assert.equal(checked.code, 0, checked.stderr);
      const lock = JSON.parse(fs.readFileSync(path.join(project, 'svc.lock'), 'utf8'));
      assert.deepEqual(lock, { packages: [{ name: '@acme/util', version: '0.1.0', github: 'github.com/acme/tools', sha: util.sha, digest: host.digestOf(util) }] });
      lock.packages[0].digest = 'sha256:' + '0'.repeat(64);
      fs.writeFileSync(path.join(project, 'svc.lock'), JSON.stringify(lock));
      const stale = await svcInProcess(['build', 'check'], { cwd: project, env });
      assert.equal(stale.code, 1);
      assert.match(stale.stderr, /svc\.lock locks @acme\/util at .* but the store holds/);
    } finally {
      host.close();
    }
  });
});
