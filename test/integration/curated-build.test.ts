// The curated Package project as a whole: every Package builds with
// no warning under --deny-warnings, its own tests and readme examples pass under
// `svc build test`, and the build derives exactly the `requires` REQUIRES lists for it.
// The command is the one that publishes the tree the other curated files run against
// (support/curated/published.ts: `svc build test --publish-local`, once per change of the
// Packages or the build), so its report and the published capabilities.yaml are read here.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { curatedTestReport, publishedCurated } from '../support/curated/published';

const host = (name: string) => `host == "${name}"`;
const hostPath = (name: string, p: string) => `host == "${name}" and path == "${p}"`;
const secret = (name: string) => ({ capability: 'secrets.get', filter: `name == "${name}"` });
const each = (capabilities: string[], filter: string) => capabilities.map((capability) => ({ capability, filter }));

/** The grants each Package's own caller needs (what its readme documents), as the build must derive them. */
const REQUIRES: Record<string, Array<{ capability: string; filter?: string }>> = {
  'brave-search': [{ capability: 'http.get', filter: host('api.search.brave.com') }, secret('BRAVE_SEARCH_API_KEY')],
  exa: [{ capability: 'http.post', filter: hostPath('api.exa.ai', '/contents') }, { capability: 'http.post', filter: hostPath('api.exa.ai', '/search') }, secret('EXA_API_KEY')],
  firecrawl: [
    { capability: 'fs.write' },
    ...each(['http.delete', 'http.download', 'http.get'], host('api.firecrawl.dev')),
    ...['/v2/batch/scrape', '/v2/crawl', '/v2/map', '/v2/scrape', '/v2/search'].map((p) => ({ capability: 'http.post', filter: hostPath('api.firecrawl.dev', p) })),
    secret('FIRECRAWL_API_KEY'),
  ],
  github: [...each(['http.delete', 'http.get', 'http.patch', 'http.post', 'http.put'], host('api.github.com')), { capability: 'http.post', filter: hostPath('api.github.com', '/graphql') }, secret('GITHUB_TOKEN')],
  gmail: [{ capability: 'fs.read' }, { capability: 'fs.stat' }, { capability: 'fs.write' }, ...each(['http.delete', 'http.get', 'http.post'], host('gmail.googleapis.com')), secret('GOOGLE_ACCESS_TOKEN')],
  'google-calendar': [...each(['http.delete', 'http.get', 'http.patch', 'http.post'], host('www.googleapis.com')), secret('GOOGLE_ACCESS_TOKEN')],
  'google-drive': [
    { capability: 'fs.read' },
    { capability: 'fs.stat' },
    { capability: 'fs.write' },
    ...each(['http.delete', 'http.download', 'http.get', 'http.patch', 'http.post', 'http.put'], host('www.googleapis.com')),
    secret('GOOGLE_ACCESS_TOKEN'),
  ],
  // The shared helpers read no secret and send nothing: the consuming Package owns every grant.
  kit: [],
  jina: [
    { capability: 'fs.write' },
    { capability: 'http.download', filter: host('r.jina.ai') },
    { capability: 'http.download', filter: host('s.jina.ai') },
    { capability: 'http.post', filter: hostPath('r.jina.ai', '/') },
    { capability: 'http.post', filter: hostPath('s.jina.ai', '/') },
    secret('JINA_API_KEY'),
  ],
  linear: [{ capability: 'http.post', filter: hostPath('api.linear.app', '/graphql') }, secret('LINEAR_API_KEY')],
  notion: [{ capability: 'fs.read' }, { capability: 'fs.stat' }, ...each(['http.get', 'http.patch', 'http.post'], host('api.notion.com')), secret('NOTION_ACCESS_TOKEN')],
  sentry: [...each(['http.get', 'http.put'], host('sentry.io')), secret('SENTRY_AUTH_TOKEN')],
  'slack-bot': [...each(['http.get', 'http.post'], host('slack.com')), secret('SLACK_BOT_TOKEN')],
  'slack-user': [{ capability: 'fs.write' }, { capability: 'http.download', filter: host('files.slack.com') }, ...each(['http.get', 'http.post'], host('slack.com')), secret('SLACK_USER_TOKEN')],
  typesafe: [{ capability: 'http.post', filter: hostPath('api.typesafe.ai', '/v1/systemone') }, secret('TYPESAFE_AI_KEY')],
};

const key = (r: { capability: string; filter?: string }) => `${r.capability} ${r.filter ?? ''}`;

describe('the curated Package project', () => {
  let output = '';
  let store = '';
  // The report exists only when the command exited 0 (a failure fails this hook with the report).
  before(async () => {
    store = await publishedCurated();
    output = await curatedTestReport();
  });

  test('every Package builds without a warning and passes its own tests and readme examples', () => {
    assert.match(output, / 0 failed$/m);
    for (const name of Object.keys(REQUIRES)) assert.match(output, new RegExp(`^@svc/${name} 0\\.1\\.0$`, 'm'), `@svc/${name} was not tested`);
  });

  for (const [name, expected] of Object.entries(REQUIRES)) {
    test(`@svc/${name} derives exactly the requires its readme documents`, () => {
      const file = YAML.parse(fs.readFileSync(path.join(store, '@svc', name, 'capabilities.yaml'), 'utf8')) as { namespace: string; requires: Array<{ capability: string; filter?: string }> };
      assert.equal(file.namespace, 'svc');
      assert.deepEqual(file.requires.map(key).sort(), expected.map(key).sort());
    });
  }
});
