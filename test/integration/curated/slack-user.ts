// @svc/slack-user installed into a real server and called from programs against a Slack
// stand-in on slack.com and files.slack.com: requests with the user token, normalised
// results, search cursors, the download into the file area behind the caller's own
// fs.write rule, error mapping, the missing token and denials that send nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCurated, type Curated } from '../../support/curated';
import { FILE_BYTES, FILE_PATH, SLACK_HOSTS, slackCall, slackHandler } from '../../support/curated/slack-bot';

const TOKEN = 'xoxp-test-user-token';
const secrets = { SLACK_USER_TOKEN: TOKEN };

function program(body: string): string {
  return `import slack from "@svc/slack-user";
import { readText, mkdir } from "svc:fs";
export function main() {
  try { return { value: (() => { ${body} })() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds, slackError: e.slackError, capability: e.capability, message: e.message } }; }
}`;
}

describe('@svc/slack-user', () => {
  let c: Curated;
  const granted = ['addReaction', 'findUserByEmail', 'getChannel', 'getFile', 'getIdentity', 'getMessage', 'getThread', 'getUser', 'listChannels', 'listMessages', 'listUsers', 'search', 'sendDirectMessage', 'sendGroupDirectMessage', 'sendMessage'];
  before(async () => {
    c = await startCurated({
      package: '@svc/slack-user',
      hosts: SLACK_HOSTS,
      secret: 'SLACK_USER_TOKEN',
      handler: slackHandler,
      extra: { vfs: { mode: 'ephemeral' } },
      main: [
        // sendMessage only to one channel.
        ...granted.map((name) => ({ capability: `slack.com/user/${name}`, ...(name === 'sendMessage' ? { filter: 'channelId == "C0123ABCD"' } : {}) })),
        // Downloads are granted anywhere, but the caller may only write under /downloads.
        { capability: 'slack.com/user/downloadFile' },
        { capability: 'fs.write', filter: 'path glob "/downloads/*"' },
        { capability: 'fs.mkdir' },
        { capability: 'fs.read' },
        { capability: 'fs.stat' },
      ],
    });
  });
  after(async () => {
    await c?.close();
  });

  const call = (body: string, withSecret = true) => c.call(program(body), withSecret ? { secrets } : {});

  test('search sends search.messages with the user token and a "*" cursor first, then the returned cursor', async () => {
    const r = await call(`const first = slack.search("deploy failed", { sort: "timestamp", limit: 1 }); return { first, next: slack.search("deploy failed", { pageToken: first.nextPageToken }) };`);
    const [a, b] = r.sent.map((s: any) => new URL(s.path, 'https://slack.com'));
    assert.equal(r.sent[0].method, 'GET');
    assert.equal(a.pathname, '/api/search.messages');
    assert.equal(r.sent[0].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(a.searchParams.get('query'), 'deploy failed');
    assert.equal(a.searchParams.get('sort'), 'timestamp');
    assert.equal(a.searchParams.get('count'), '1');
    assert.equal(a.searchParams.get('cursor'), '*');
    assert.equal(b.searchParams.get('cursor'), 'c2VhcmNoOjI=');
    assert.equal(r.value.first.total, 3);
    assert.deepEqual(r.value.first.items[0], { channelId: 'C0123ABCD', channelName: 'ops', ts: '1712345000.000100', userId: 'U0ADA', username: 'ada', text: 'deploy failed', permalink: 'https://acme.slack.com/archives/C0123ABCD/p1712345000000100' });
    assert.equal(r.value.first.nextPageToken, 'c2VhcmNoOjI=');
  });

  test('findUserByEmail lower-cases the address; an unknown address is not_found', async () => {
    const r = await call(`return slack.findUserByEmail(" Ada@Example.com ");`);
    assert.equal(new URL(r.sent[0].path, 'https://slack.com').searchParams.get('email'), 'ada@example.com');
    assert.equal(r.value.id, 'U0ADA');
    const missing = await call(`return slack.findUserByEmail("nobody@example.com");`);
    assert.equal(missing.error.code, 'not_found');
    assert.equal(missing.error.slackError, 'users_not_found');
  });

  test('channels, messages, threads and sending as the user', async () => {
    const r = await call(`return { channels: slack.listChannels(), channel: slack.getChannel("C0123ABCD"), messages: slack.listMessages("C0123ABCD", { oldest: "1712340000.000000" }),
      posted: slack.sendMessage("C0123ABCD", "on it"), me: slack.getIdentity() };`);
    assert.deepEqual(r.sent.map((s: any) => slackCall(s).method), ['conversations.list', 'conversations.info', 'conversations.history', 'chat.postMessage', 'auth.test']);
    assert.ok(r.sent.every((s: any) => s.headers.authorization === `Bearer ${TOKEN}`));
    assert.equal(new URL(r.sent[2].path, 'https://slack.com').searchParams.get('oldest'), '1712340000.000000');
    assert.equal(r.value.channels.items.length, 2);
    assert.equal(r.value.channel.topic, 'Deploys');
    assert.equal(r.value.messages.items[0].text, 'second');
    assert.equal(r.value.posted.ts, '1712345678.000100');
    assert.equal(r.value.me.userId, 'U0BOT');
  });

  test('threads, single messages, users, reactions and direct messages as the user', async () => {
    const r = await call(`return { thread: slack.getThread("C0123ABCD", "1712345000.000100", { limit: 10 }), one: slack.getMessage("C0123ABCD", "1712345000.000200"),
      user: slack.getUser("U0ADA"), users: slack.listUsers(), react: slack.addReaction("C0123ABCD", "1712345000.000200", "eyes"),
      dm: slack.sendDirectMessage("U0ADA", "ping"), group: slack.sendGroupDirectMessage(["U0ADA", "U0BOB"], "ping all") };`);
    assert.deepEqual(r.sent.map((s: any) => slackCall(s).method), ['conversations.replies', 'conversations.history', 'users.info', 'users.list', 'reactions.add', 'conversations.open', 'chat.postMessage', 'conversations.open', 'chat.postMessage']);
    assert.ok(r.sent.every((s: any) => s.headers.authorization === `Bearer ${TOKEN}`));
    assert.equal(r.value.thread.items.length, 2);
    assert.equal(r.value.one.text, 'second');
    assert.equal(r.value.user.id, 'U0ADA');
    assert.equal(r.value.users.nextPageToken, 'dXNlcjpVMEJPQg==');
    assert.equal(r.value.dm.channelId, 'D0DM1');
    assert.equal(r.value.group.channelId, 'G0MPIM1');
  });

  test('getFile then downloadFile writes the bytes from files.slack.com into the file area', async () => {
    const r = await call(`mkdir("/downloads", true); const f = slack.getFile("F0FILE1"); const d = slack.downloadFile(f.urlPrivateDownload, "/downloads/report.pdf"); return { f, d, text: readText("/downloads/report.pdf") };`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.sent.map((s: any) => [s.host, s.method]), [['slack.com', 'GET'], ['files.slack.com', 'GET']]);
    assert.equal(r.sent[1].path, FILE_PATH);
    assert.equal(r.sent[1].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(r.value.f.name, 'report.pdf');
    assert.deepEqual(r.value.f.channelIds, ['C0123ABCD']);
    assert.deepEqual(r.value.d, { path: '/downloads/report.pdf', bytesWritten: FILE_BYTES.length, contentType: 'application/pdf' });
    assert.equal(r.value.text, FILE_BYTES);
  });

  test("downloadFile checks the caller's own fs.write rule: outside /downloads it is denied and nothing is fetched", async () => {
    const r = await call(`return slack.downloadFile("https://files.slack.com${FILE_PATH}", "/elsewhere.pdf");`);
    assert.equal(r.error.name, 'PermissionDeniedError');
    assert.equal(r.error.capability, 'fs.write');
    assert.equal(r.sent.length, 0);
  });

  test('downloadFile refuses URLs outside files.slack.com before any check or request', async () => {
    const r = await call(`return slack.downloadFile("https://example.com/x.pdf", "/downloads/x.pdf");`);
    assert.equal(r.error.code, 'invalid_argument');
    assert.equal(r.sent.length, 0);
  });

  test('a download answered with 404 throws not_found', async () => {
    const r = await call(`mkdir("/downloads", true); return slack.downloadFile("https://files.slack.com/files-pri/T0001-F0NONE/x.pdf", "/downloads/none.pdf");`);
    assert.equal(r.error.code, 'not_found');
    assert.equal(r.error.status, 404);
  });

  test('without SLACK_USER_TOKEN: missing_token and nothing is sent', async () => {
    const r = await call(`return slack.search("x");`, false);
    assert.equal(r.error.code, 'missing_token');
    assert.equal(r.sent.length, 0);
  });

  test('a rule whose filter does not match denies the call before any request', async () => {
    const r = await call(`return slack.sendMessage("C0999OTHER", "x");`);
    assert.equal(r.error.name, 'PermissionDeniedError');
    assert.equal(r.error.capability, 'slack.com/user/sendMessage');
    assert.equal(r.sent.length, 0);
  });

  test('errors: ok:false codes and HTTP statuses map to SlackError codes', async () => {
    const cases: Array<[() => any, string, number, number | null]> = [
      [() => ({ status: 200, json: { ok: false, error: 'invalid_auth' } }), 'unauthorized', 200, null],
      [() => ({ status: 200, json: { ok: false, error: 'missing_scope', needed: 'search:read' } }), 'forbidden', 200, null],
      [() => ({ status: 200, json: { ok: false, error: 'file_not_found' } }), 'not_found', 200, null],
      [() => ({ status: 401, body: '' }), 'unauthorized', 401, null],
      [() => ({ status: 403, body: '' }), 'forbidden', 403, null],
      [() => ({ status: 404, body: '' }), 'not_found', 404, null],
      [() => ({ status: 429, headers: { 'retry-after': '12' }, json: { ok: false, error: 'ratelimited' } }), 'rate_limited', 429, 12],
    ];
    for (const [reply, code, status, retry] of cases) {
      c.api.handle(reply);
      const r = await call(`return slack.getFile("F0FILE1");`);
      assert.equal(r.error.code, code);
      assert.equal(r.error.status, status);
      assert.equal(r.error.retryAfterSeconds, retry);
    }
    c.api.handle(slackHandler);
  });
});
