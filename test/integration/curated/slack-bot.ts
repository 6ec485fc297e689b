// @svc/slack-bot installed into a real server and called from programs against a Slack
// stand-in on slack.com: the requests Slack receives (method, path, query or JSON body, the
// bot token), the normalised results, Slack's ok:false errors and HTTP failures mapped to
// SlackError codes, the missing token, and denials that send nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCurated, type Curated } from '../../support/curated';
import { SLACK_HOSTS, slackCall, slackHandler } from '../../support/curated/slack-bot';

const TOKEN = 'xoxb-test-bot-token';
const secrets = { SLACK_BOT_TOKEN: TOKEN };

/** A program calling the Package; a thrown error comes back as its fields. */
function program(body: string): string {
  return `import slack from "@svc/slack-bot";
export function main() {
  try { return { value: (() => { ${body} })() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds, slackError: e.slackError, neededScope: e.neededScope, capability: e.capability, message: e.message } }; }
}`;
}

describe('@svc/slack-bot', () => {
  let c: Curated;
  const granted = [
    'sendMessage', 'updateMessage', 'addReaction', 'removeReaction', 'getConversation', 'getIdentity', 'getMessage', 'getThread',
    'getUser', 'listConversations', 'listMembers', 'listMessages', 'listUsers', 'openDirectMessage', 'openGroupDirectMessage',
    'sendDirectMessage', 'sendGroupDirectMessage',
  ];
  before(async () => {
    c = await startCurated({
      package: '@svc/slack-bot',
      hosts: SLACK_HOSTS,
      secret: 'SLACK_BOT_TOKEN',
      handler: slackHandler,
      // sendMessage only to one channel, deleteMessage only in another; nothing else is granted.
      main: [
        ...granted.map((name) => ({ capability: `slack.com/bot/${name}`, ...(name === 'sendMessage' ? { filter: 'channelId == "C0123ABCD"' } : {}) })),
        { capability: 'slack.com/bot/deleteMessage', filter: 'channelId == "C0SCRATCH"' },
      ],
    });
  });
  after(async () => {
    await c?.close();
  });

  const call = (body: string, withSecret = true) => c.call(program(body), withSecret ? { secrets } : {});

  test('sendMessage posts JSON to chat.postMessage with the bot token and returns the posted message', async () => {
    const r = await call(`return slack.sendMessage("C0123ABCD", "Deploy done", { threadTs: "1712345000.000100", unfurlLinks: false });`);
    assert.equal(r.sent.length, 1);
    const [req] = r.sent;
    assert.equal(req.method, 'POST');
    assert.equal(req.host, 'slack.com');
    assert.equal(req.path, '/api/chat.postMessage');
    assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
    assert.match(String(req.headers['content-type']), /^application\/json/);
    assert.deepEqual(req.json, { channel: 'C0123ABCD', text: 'Deploy done', thread_ts: '1712345000.000100', unfurl_links: false });
    assert.equal(r.value.channelId, 'C0123ABCD');
    assert.equal(r.value.ts, '1712345678.000100');
    assert.equal(r.value.message.text, 'Deploy done');
    assert.equal(r.value.message.threadTs, '1712345000.000100');
    assert.equal(r.value.message.botId, 'B0001');
  });

  test('listMessages reads conversations.history with GET and pages with the opaque cursor', async () => {
    const r = await call(`return slack.listMessages("C0123ABCD", { limit: 2, pageToken: "abc=" });`);
    const url = new URL(r.sent[0].path, 'https://slack.com');
    assert.equal(r.sent[0].method, 'GET');
    assert.equal(url.pathname, '/api/conversations.history');
    assert.equal(url.searchParams.get('channel'), 'C0123ABCD');
    assert.equal(url.searchParams.get('limit'), '2');
    assert.equal(url.searchParams.get('cursor'), 'abc=');
    assert.equal(r.sent[0].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(r.value.nextPageToken, 'bmV4dF90czoxNzEyMzQ1MDAw');
    assert.deepEqual(r.value.items.map((m: any) => m.text), ['second', 'first']);
    assert.deepEqual(r.value.items[0].reactions, [{ name: 'eyes', count: 1, userIds: ['U0BOB'] }]);
    assert.equal(r.value.items[1].replyCount, 1);
    assert.equal(r.value.items[1].channelId, 'C0123ABCD');
  });

  test('getMessage finds a thread reply through conversations.replies; getThread returns parent and replies', async () => {
    const r = await call(`return { one: slack.getMessage("C0123ABCD", "1712345000.000300"), thread: slack.getThread("C0123ABCD", "1712345000.000100") };`);
    assert.deepEqual(r.sent.map((s: any) => slackCall(s).method), ['conversations.history', 'conversations.replies', 'conversations.replies']);
    assert.equal(r.value.one.text, 'a reply');
    assert.equal(r.value.one.userId, 'U0BOB');
    assert.deepEqual(r.value.thread.items.map((m: any) => m.ts), ['1712345000.000100', '1712345000.000300']);
    assert.equal(r.value.thread.nextPageToken, null);
  });

  test('conversations, members, users and identity are normalised', async () => {
    const r = await call(`return { list: slack.listConversations({ types: ["public_channel", "private_channel"], limit: 2 }), info: slack.getConversation("C0123ABCD"),
      members: slack.listMembers("C0123ABCD"), user: slack.getUser("U0ADA"), users: slack.listUsers({ limit: 2 }), me: slack.getIdentity() };`);
    const list = new URL(r.sent[0].path, 'https://slack.com');
    assert.equal(list.searchParams.get('types'), 'public_channel,private_channel');
    assert.equal(list.searchParams.get('exclude_archived'), 'true');
    assert.deepEqual(r.value.list.items.map((x: any) => [x.id, x.kind]), [['C0123ABCD', 'public_channel'], ['G0PRIV1', 'private_channel']]);
    assert.equal(r.value.list.nextPageToken, 'dGVhbTpDMDI=');
    assert.deepEqual(r.value.info, { id: 'C0123ABCD', name: 'ops', kind: 'public_channel', isArchived: false, isMember: true, topic: 'Deploys', purpose: 'Operations', memberCount: 7, userId: null, created: 1600000000 });
    assert.deepEqual(r.value.members, { items: ['U0ADA', 'U0BOB'], nextPageToken: null });
    assert.equal(r.value.user.email, 'ada@example.com');
    assert.equal(r.value.user.displayName, 'ada');
    assert.equal(r.value.users.items.length, 2);
    assert.deepEqual(r.value.me, { userId: 'U0BOT', user: 'deploybot', teamId: 'T0001', team: 'Acme', url: 'https://acme.slack.com/', botId: 'B0001', enterpriseId: null });
  });

  test('direct and group direct messages open the conversation, then post to it', async () => {
    const r = await call(`return { dm: slack.sendDirectMessage("U0ADA", "hello"), group: slack.sendGroupDirectMessage(["U0BOB", "U0ADA"], "hi both"), open: slack.openGroupDirectMessage(["U0ADA", "U0BOB"]) };`);
    assert.deepEqual(r.sent.map((s: any) => [slackCall(s).method, s.json]), [
      ['conversations.open', { users: 'U0ADA', return_im: true }],
      ['chat.postMessage', { channel: 'D0DM1', text: 'hello' }],
      ['conversations.open', { users: 'U0ADA,U0BOB', return_im: true }],
      ['chat.postMessage', { channel: 'G0MPIM1', text: 'hi both' }],
      ['conversations.open', { users: 'U0ADA,U0BOB', return_im: true }],
    ]);
    assert.equal(r.value.dm.channelId, 'D0DM1');
    assert.equal(r.value.group.channelId, 'G0MPIM1');
    assert.deepEqual(r.value.open, { channelId: 'G0MPIM1' });
  });

  test('updateMessage and reactions send the documented JSON bodies', async () => {
    const r = await call(`slack.addReaction("C0123ABCD", "1712345000.000100", ":white_check_mark:"); slack.removeReaction("C0123ABCD", "1712345000.000100", "eyes");
      return slack.updateMessage("C0123ABCD", "1712345000.000100", "edited");`);
    assert.deepEqual(r.sent.map((s: any) => [slackCall(s).method, s.json]), [
      ['reactions.add', { channel: 'C0123ABCD', timestamp: '1712345000.000100', name: 'white_check_mark' }],
      ['reactions.remove', { channel: 'C0123ABCD', timestamp: '1712345000.000100', name: 'eyes' }],
      ['chat.update', { channel: 'C0123ABCD', ts: '1712345000.000100', text: 'edited' }],
    ]);
    assert.deepEqual(r.value, { channelId: 'C0123ABCD', ts: '1712345000.000100', text: 'edited' });
  });

  test('without SLACK_BOT_TOKEN: missing_token and nothing is sent', async () => {
    const r = await call(`return slack.getIdentity();`, false);
    assert.equal(r.sent.length, 0);
    assert.equal(r.error.name, 'SlackError');
    assert.equal(r.error.code, 'missing_token');
    assert.equal(r.error.status, 0);
    assert.ok(!JSON.stringify(r).includes(TOKEN));
  });

  test('deleteMessage and openDirectMessage where the rules allow them', async () => {
    const r = await call(`slack.deleteMessage("C0SCRATCH", "1712345000.000100"); return slack.openDirectMessage("U0ADA");`);
    assert.deepEqual(r.sent.map((s: any) => [slackCall(s).method, s.json]), [
      ['chat.delete', { channel: 'C0SCRATCH', ts: '1712345000.000100' }],
      ['conversations.open', { users: 'U0ADA', return_im: true }],
    ]);
    assert.deepEqual(r.value, { channelId: 'D0DM1' });
  });

  test('filters that do not match deny the call before any request', async () => {
    const r1 = await call(`return slack.deleteMessage("C0123ABCD", "1712345000.000100");`);
    assert.equal(r1.error.name, 'PermissionDeniedError');
    assert.equal(r1.error.capability, 'slack.com/bot/deleteMessage');
    const r2 = await call(`return slack.sendMessage("C0999OTHER", "elsewhere");`);
    assert.equal(r2.error.name, 'PermissionDeniedError');
    assert.equal(r2.error.capability, 'slack.com/bot/sendMessage');
    assert.equal(r1.sent.length + r2.sent.length, 0);
  });

  test('bad arguments throw invalid_argument naming the field; nothing is sent', async () => {
    const r = await call(`return slack.sendMessage("#general", "hi");`);
    assert.equal(r.error.code, 'invalid_argument');
    assert.match(r.error.message, /channelId/);
    assert.equal(r.sent.length, 0);
  });

  test("Slack's ok:false errors map to codes; other errors keep Slack's string", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['invalid_auth', {}, 'unauthorized'],
      ['token_revoked', {}, 'unauthorized'],
      ['missing_scope', { needed: 'chat:write', provided: 'channels:read' }, 'forbidden'],
      ['not_allowed_token_type', {}, 'forbidden'],
      ['channel_not_found', {}, 'not_found'],
      ['not_in_channel', {}, 'slack_error'],
    ];
    for (const [error, extra, code] of cases) {
      c.api.handle(() => ({ status: 200, json: { ok: false, error, ...extra } }));
      const r = await call(`return slack.sendMessage("C0123ABCD", "x");`);
      assert.equal(r.error.name, 'SlackError', error);
      assert.equal(r.error.code, code, error);
      assert.equal(r.error.slackError, error);
      assert.equal(r.error.status, 200);
      if (error === 'missing_scope') assert.equal(r.error.neededScope, 'chat:write');
    }
    c.api.handle(slackHandler);
  });

  test('HTTP 401, 403, 404 and 429 (with Retry-After) map to codes with the status', async () => {
    const cases: Array<[number, string]> = [[401, 'unauthorized'], [403, 'forbidden'], [404, 'not_found'], [429, 'rate_limited'], [500, 'http_error']];
    for (const [status, code] of cases) {
      c.api.handle(() => (status === 429 ? { status, headers: { 'retry-after': '30' }, json: { ok: false, error: 'ratelimited' } } : { status, body: 'nope' }));
      const r = await call(`return slack.listUsers();`);
      assert.equal(r.error.code, code, String(status));
      assert.equal(r.error.status, status);
      assert.equal(r.error.retryAfterSeconds, status === 429 ? 30 : null);
    }
    c.api.handle(() => ({ status: 200, body: '<html>not json</html>' }));
    const bad = await call(`return slack.listUsers();`);
    assert.equal(bad.error.code, 'invalid_response');
    c.api.handle(slackHandler);
  });

  test('with @svc/kit underneath, the request, the token and the errors stay @svc/slack-bot\'s own', async () => {
    const audited = () => [...c.decisions('http.post'), ...c.decisions('http.get'), ...c.decisions('secrets.get')].length;
    const before = audited();
    const r = await call(`
      const posted = slack.sendMessage("C0123ABCD", "kit check");
      const kinds: boolean[] = [];
      for (const f of [() => slack.getUser("someone"), () => slack.getConversation("C0GONE")]) {
        try { f(); kinds.push(false); } catch (e) { kinds.push(e instanceof slack.SlackError && e.name === "SlackError"); }
      }
      return { ts: posted.ts, kinds };`);
    assert.equal(r.value.ts, '1712345678.000100');
    // The kit raised both errors (an argument check and Slack's ok:false), as the Package's own class.
    assert.deepEqual(r.value.kinds, [true, true]);
    const records = [...c.decisions('http.post'), ...c.decisions('http.get'), ...c.decisions('secrets.get')];
    assert.ok(audited() >= before + 3, 'the post, the lookup and their token reads were judged');
    for (const record of records) {
      const text = JSON.stringify(record);
      assert.match(text, /@svc\/slack-bot/, text);
      assert.doesNotMatch(text, /@svc\/kit/, text);
    }
  });
});
