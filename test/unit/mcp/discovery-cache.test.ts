// The MCP discovery cache stays bounded: catalogues of servers whose headers need a harness
// secret are kept per session (one-off runs' throw-away sessions too), so a token looping
// runs must not grow it for ever, and a session that ends takes its catalogues with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent } from 'undici';
import { silentLog } from '../../../src/audit';
import { parseBlueprint } from '../../../src/blueprints';
import { McpDiscovery } from '../../../src/mcp/client';

const YAML = `name: cache
secrets:
  USER_TOKEN: {harness: {}}
mcp:
  personal:
    url: https://personal.example.com/mcp
    headers:
      Authorization: "Bearer \${secrets.USER_TOKEN}"
`;

function discovery(): McpDiscovery {
  // Sessions that do not provide the secret fail before any connection: no network is used.
  return new McpDiscovery({ dispatcher: new Agent(), storeSecret: () => undefined, log: silentLog, version: 'test' });
}

test('per-session catalogues are bounded: 1,100 sessions keep at most 1,024, the newest', async () => {
  const parsed = parseBlueprint(YAML);
  assert.ok(parsed.ok);
  const cache = discovery();
  for (let i = 0; i < 1100; i++) {
    const catalogue = await cache.catalogue(parsed.blueprint, 'personal', { sessionId: `s${i}`, harness: {} });
    assert.equal(catalogue.ok, false);
  }
  assert.equal(cache.cachedCatalogues, 1024);
  // The newest is still cached (answered without discovering again), the oldest went first.
  cache.forgetSession('s1099');
  assert.equal(cache.cachedCatalogues, 1023);
  cache.forgetSession('s0');
  assert.equal(cache.cachedCatalogues, 1023, 's0 was already dropped as the oldest');
});

test("a session that ends takes its catalogues with it; other sessions' stay", async () => {
  const parsed = parseBlueprint(YAML);
  assert.ok(parsed.ok);
  const cache = discovery();
  await cache.catalogue(parsed.blueprint, 'personal', { sessionId: 'a', harness: {} });
  await cache.catalogue(parsed.blueprint, 'personal', { sessionId: 'b', harness: {} });
  assert.equal(cache.cachedCatalogues, 2);
  cache.forgetSession('a');
  assert.equal(cache.cachedCatalogues, 1);
  cache.forgetSession('ab');
  assert.equal(cache.cachedCatalogues, 1, 'only the exact session id is dropped');
});
