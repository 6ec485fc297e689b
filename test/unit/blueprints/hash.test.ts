// The Blueprint hash: the reference test vectors, stability under formatting, key order,
// comments, quoting and explicit defaults, and change under any semantic change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint } from '../../../src/blueprints';

function hashOf(yaml: string): string {
  const result = parseBlueprint(yaml);
  if (!result.ok) throw new Error(result.problem.message);
  return result.blueprint.hash;
}

const DEMO = `name: demo
idle_timeout: 1h
vfs:
  mode: per_session
  size_limit: 50MB
variables:
  team:
    required: true
permissions:
  main:
    - capability: fs.read
      filter: path glob "/teams/\${vars.team}/*"
      action: allow
`;

test('the reference test vectors hash as documented', () => {
  assert.equal(hashOf('kind: blueprint\nname: minimal\ndefault: deny\npermissions: {main: []}\n'), 'fab6fba239e0de2944717a4ffb054655ef65973dfa1b874ae8cea4d6cfc74e91');
  assert.equal(hashOf(DEMO), 'bc115813402eb8fb6ed947b7a6be386ee5c64edbe42303c1623e96c783fb2633');
});

test('key order, comments, quoting, flow style, kind and explicit defaults do not change the hash', () => {
  const rewritten = `# the demo Blueprint, rewritten
permissions: {main: [{action: allow, filter: 'path glob "/teams/\${vars.team}/*"', capability: "fs.read"}]}
variables: {"team": {required: true}}
vfs: {size_limit: 52428800, mode: per_session, cwd: /}
kind: blueprint
allow_insecure_http: false
default: deny
idle_timeout: 60m
name: "demo"
`;
  assert.equal(hashOf(rewritten), hashOf(DEMO));
  assert.equal(hashOf('name: x\nidle_timeout: 24h\nvfs: ephemeral\npackages: []\n'), hashOf('name: x\n'));
  assert.equal(hashOf('name: x\npermissions: {main: [{capability: a, filter: "n==1", action: allow}]}\n'), hashOf('name: x\npermissions: {main: [{capability: a, filter: "n == 1.0", action: allow}]}\n'));
});

test('any semantic change changes the hash', () => {
  const base = hashOf(DEMO);
  const variants = [
    DEMO.replace('1h', '2h'),
    DEMO.replace('per_session', 'ephemeral'),
    DEMO.replace('50MB', '51MB'),
    DEMO.replace('required: true', 'required: false'),
    DEMO.replace('action: allow', 'action: deny'),
    DEMO.replace('fs.read', 'fs.write'),
    DEMO.replace('/teams/', '/team/'),
    DEMO.replace('name: demo', 'name: demo2'),
    `${DEMO}default: allow\n`,
    `${DEMO}allow_insecure_http: true\n`,
  ];
  const hashes = new Set(variants.map(hashOf));
  assert.equal(hashes.size, variants.length);
  assert.ok(!hashes.has(base));
});
