// svc.toml: required keys, name rules, reserved scope, paths, dependencies; every error
// names the key and says what is accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PackageError, parseManifest } from '../../../src/packages';

const refused = (source: string, pattern: RegExp) => {
  assert.throws(() => parseManifest(source), (error: unknown) => error instanceof PackageError && error.code === 'invalid_manifest' && pattern.test(error.message));
};

test('a single Package with keywords and dependencies of both kinds parses', () => {
  const manifest = parseManifest(`[[package]]
name = "@acme/billing"
version = "0.1.0"
description = "Billing operations for Acme"
keywords = ["billing", "invoices"]
dependencies = ["@acme/shared", "@other/util"]
unknown_key = "ignored"

[dependencies]
"@acme/shared" = "0.3.0"
"@other/util" = { github = "github.com/other/tools", rev = "${'A'.repeat(40)}" }
`);
  assert.equal(manifest.packages[0].name, '@acme/billing');
  assert.deepEqual(manifest.packages[0].keywords, ['billing', 'invoices']);
  assert.equal(manifest.packages[0].path, '');
  assert.deepEqual(manifest.dependencies.get('@acme/shared'), { kind: 'store', version: '0.3.0' });
  assert.deepEqual(manifest.dependencies.get('@other/util'), { kind: 'github', github: 'github.com/other/tools', rev: 'a'.repeat(40) });
});

const base = (extra: string) => `[[package]]\nname = "@acme/a"\nversion = "1"\ndescription = "d"\n${extra}`;

test('manifest errors name the key and the fix', () => {
  refused('name = 1', /at least one `\[\[package\]\]`/);
  refused('[[package]]\nversion = "1"\ndescription = "d"\n', /`name` is required/);
  refused('[[package]]\nname = "@acme/a"\ndescription = "d"\n', /`version` is required/);
  refused('[[package]]\nname = "@acme/a"\nversion = "1"\ndescription = "  "\n', /`description` may not be blank/);
  refused('[[package]]\nname = "acme/a"\nversion = "1"\ndescription = "d"\n', /`name`: a package name looks like `@scope\/name`/);
  refused('[[package]]\nname = "@a--b/x"\nversion = "1"\ndescription = "d"\n', /scope is 1-39/);
  refused('[[package]]\nname = "@a.b/x"\nversion = "1"\ndescription = "d"\n', /no dots/);
  refused('[[package]]\nname = "@acme/.."\nversion = "1"\ndescription = "d"\n', /not `\.` or `\.\.`/);
  refused('[[package]]\nname = "@mcp/x"\nversion = "1"\ndescription = "d"\n', /scope `mcp` is reserved/);
  refused(base('path = "../out"'), /`path` may not leave the project/);
  refused(base('path = "/abs"'), /`path` must be a relative path/);
  refused(base('dependencies = ["@x/y"]'), /dependency `@x\/y` is neither a \[\[package\]\] of this file nor a key of \[dependencies\]/);
  refused(base('\n[dependencies]\n"@x/y" = { github = "x/y", rev = "main" }'), /full 40-character commit id/);
  refused(base('keywords = "one"'), /`keywords` must be a list of strings/);
  refused(`${base('path = "a"')}\n[[package]]\nname = "@acme/b"\nversion = "1"\ndescription = "d"\n`, /`path` is required when there is more than one/);
  refused(`${base('path = "a"')}\n[[package]]\nname = "@acme/a"\nversion = "1"\ndescription = "d"\npath = "b"\n`, /appears twice/);
  refused('name = = 1\n', /not valid TOML/);
});
