// @svc/gmail installed into a real server and called from programs against a Gmail API
// stand-in on gmail.googleapis.com: requests with the shared Google token, normalised
// messages, the MIME the Package sends (display-name recipients, attachments read from the
// file area behind the caller's own fs.read rule), replies addressed from the original,
// attachments written behind the caller's fs.write rule, error mapping, the missing token
// and denials that send nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { derivedRequires, startCurated, type Curated } from '../../support/curated';
import { ATTACHMENT_TEXT, GMAIL_HOST, MESSAGE, base64Parts, decodeRaw, gmailHandler } from '../../support/curated/gmail';

const TOKEN = 'ya29.test-google-access-token';
const secrets = { GOOGLE_ACCESS_TOKEN: TOKEN };
const GRANTED = ['createDraft', 'createLabel', 'createReplyDraft', 'downloadAttachment', 'getDraft', 'getMessage', 'getProfile', 'getThread', 'listDrafts', 'listLabels', 'modifyMessageLabels', 'modifyThreadLabels', 'searchThreads', 'sendDraft', 'triage'];

function program(body: string): string {
  return `import gmail from "@svc/gmail";
import { readText, readBytes, writeText, mkdir, exists, size } from "svc:fs";
export function main() {
  try { return { value: (() => { ${body} })() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds, reason: e.reason, googleStatus: e.googleStatus, capability: e.capability, message: e.message } }; }
}`;
}

const url = (path: string) => new URL(path, `https://${GMAIL_HOST}`);

describe('@svc/gmail', () => {
  let c: Curated;
  before(async () => {
    c = await startCurated({
      package: '@svc/gmail',
      hosts: [GMAIL_HOST],
      secret: 'GOOGLE_ACCESS_TOKEN',
      handler: gmailHandler,
      extra: { vfs: { mode: 'ephemeral' } },
      main: [
        ...GRANTED.map((name) => ({ capability: `svc/gmail.${name}` })),
        // Never to eve, whatever the spelling; replies only to the original's Reply-To address.
        { capability: 'svc/gmail.sendEmail', filter: 'recipients contains "eve@evil.example"', action: 'deny' as const },
        { capability: 'svc/gmail.sendEmail' },
        { capability: 'svc/gmail.reply', filter: 'recipients contains "grace.replies@navy.example"' },
        // deleteDraft is not granted. The caller reads and writes only /outbox and /inbox.
        { capability: 'fs.read', filter: 'path glob "/outbox/*" or path glob "/inbox/*"' },
        { capability: 'fs.write', filter: 'path glob "/outbox/*" or path glob "/inbox/*"' },
        { capability: 'fs.mkdir' },
        { capability: 'fs.stat' },
      ],
    });
  });
  after(async () => {
    await c?.close();
  });

  const call = (body: string, withSecret = true) => c.call(program(body), withSecret ? { secrets } : {});

  test('the build derives exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/gmail'), [
      { capability: 'fs.read' },
      { capability: 'fs.stat' },
      { capability: 'fs.write' },
      { capability: 'http.delete', filter: 'host == "gmail.googleapis.com"' },
      { capability: 'http.get', filter: 'host == "gmail.googleapis.com"' },
      { capability: 'http.post', filter: 'host == "gmail.googleapis.com"' },
      { capability: 'secrets.get', filter: 'name == "GOOGLE_ACCESS_TOKEN"' },
    ]);
  });

  test('getProfile and searchThreads send GET with the Bearer token and Gmail query parameters', async () => {
    const r = await call(`return { profile: gmail.getProfile(), page: gmail.searchThreads("from:grace is:unread", { maxResults: 5, labelIds: ["INBOX"], pageToken: "p1" }) };`);
    assert.deepEqual(r.sent.map((s: any) => [s.method, url(s.path).pathname]), [['GET', '/gmail/v1/users/me/profile'], ['GET', '/gmail/v1/users/me/threads']]);
    assert.ok(r.sent.every((s: any) => s.headers.authorization === `Bearer ${TOKEN}`));
    const q = url(r.sent[1].path).searchParams;
    assert.equal(q.get('q'), 'from:grace is:unread');
    assert.equal(q.get('maxResults'), '5');
    assert.equal(q.get('labelIds'), 'INBOX');
    assert.equal(q.get('pageToken'), 'p1');
    assert.deepEqual(r.value.profile, { emailAddress: 'ada@example.com', messagesTotal: 1200, threadsTotal: 800, historyId: '987654' });
    assert.deepEqual(r.value.page, { threads: [{ id: MESSAGE.threadId, snippet: MESSAGE.snippet, historyId: '987654' }], nextPageToken: '09876543210', resultSizeEstimate: 2 });
  });

  test('getThread normalises messages: addresses, decoded subject, text and HTML bodies, attachments', async () => {
    const r = await call(`return gmail.getThread("${MESSAGE.threadId}");`);
    assert.equal(url(r.sent[0].path).pathname, `/gmail/v1/users/me/threads/${MESSAGE.threadId}`);
    assert.equal(url(r.sent[0].path).searchParams.get('format'), 'full');
    const m = r.value.messages[0];
    assert.deepEqual(m.from, { name: 'Hopper, Grace', email: 'grace@navy.example' });
    assert.deepEqual(m.to, [{ name: 'Ada Lovelace', email: 'ada@example.com' }, { name: null, email: 'bob@example.org' }]);
    assert.deepEqual(m.cc, [{ name: 'Carol', email: 'carol@example.net' }]);
    assert.equal(m.subject, 'Zahlen für Q3');
    assert.equal(m.text, 'The numbers are attached – G.');
    assert.equal(m.html, '<p>The numbers are attached</p>');
    assert.equal(m.unread, true);
    assert.equal(m.internalDate, '2023-11-14T22:13:20.000Z');
    assert.equal(m.messageIdHeader, '<CAF1234@mail.navy.example>');
    assert.deepEqual(m.attachments, [{ attachmentId: 'ANGjdJ8attachment-1', filename: 'q3.csv', mimeType: 'text/csv', size: ATTACHMENT_TEXT.length }]);
  });

  test('sendEmail posts a base64url MIME message with display-name recipients and a file-area attachment', async () => {
    const r = await call(`mkdir("/outbox"); writeText("/outbox/report.txt", "report body");
      return gmail.sendEmail({ to: ['"Lovelace, Ada" <Ada@Example.com>'], cc: "bob@example.org", bcc: ["Carol <carol@example.net>"], subject: "Bericht für Q3", text: "See attached.", attachments: [{ path: "/outbox/report.txt" }] });`);
    assert.equal(r.sent.length, 1);
    assert.equal(r.sent[0].method, 'POST');
    assert.equal(url(r.sent[0].path).pathname, '/gmail/v1/users/me/messages/send');
    assert.equal(r.sent[0].headers.authorization, `Bearer ${TOKEN}`);
    const mime = decodeRaw(r.sent[0].json.raw);
    assert.match(mime, /^To: "Lovelace, Ada" <ada@example\.com>\r\n/m);
    assert.match(mime, /^Cc: bob@example\.org\r\n/m);
    assert.match(mime, /^Bcc: "Carol" <carol@example\.net>\r\n/m);
    assert.match(mime, new RegExp('^Subject: =\\?UTF-8\\?B\\?' + Buffer.from('Bericht für Q3').toString('base64').replace(/[+/=]/g, '\\$&') + '\\?=\\r\\n', 'm'));
    assert.match(mime, /Content-Disposition: attachment; filename="report.txt"/);
    assert.deepEqual(base64Parts(mime), ['See attached.', 'report body']);
    assert.deepEqual(r.value, { id: '18c2f0a1b2c3ffff', threadId: '18c2f0a1b2c3ffff', labelIds: ['SENT'] });
  });

  test('recipients are the bare lower-cased To/Cc/Bcc addresses: a deny rule on one matches any spelling, nothing is sent', async () => {
    for (const field of ['to: "Eve <EVE@Evil.Example>"', 'to: "ada@example.com", bcc: ["x@example.org, Eve Adams <eve@evil.example>"]']) {
      const r = await call(`return gmail.sendEmail({ ${field}, subject: "hi", text: "hello" });`);
      assert.equal(r.error?.name, 'PermissionDeniedError', field);
      assert.equal(r.error.capability, 'svc/gmail.sendEmail');
      assert.equal(r.sent.length, 0);
    }
  });

  test("an attachment outside the caller's fs.read rule is denied before anything is read or sent", async () => {
    const r = await call(`return gmail.sendEmail({ to: "bob@example.org", subject: "x", text: "y", attachments: ["/private/key.pem"] as any });`);
    assert.equal(r.error.name, 'PermissionDeniedError');
    assert.equal(r.error.capability, 'fs.read');
    assert.equal(r.sent.length, 0);
  });

  test('reply reads the original, answers its Reply-To in the thread with In-Reply-To and References', async () => {
    const r = await call(`return gmail.reply("${MESSAGE.id}", { text: "Thanks!", replyAll: true });`);
    assert.deepEqual(r.sent.map((s: any) => [s.method, url(s.path).pathname]), [
      ['GET', `/gmail/v1/users/me/messages/${MESSAGE.id}`],
      ['GET', '/gmail/v1/users/me/profile'],
      ['POST', '/gmail/v1/users/me/messages/send'],
    ]);
    assert.equal(url(r.sent[0].path).searchParams.get('format'), 'metadata');
    assert.ok(url(r.sent[0].path).searchParams.getAll('metadataHeaders').includes('Reply-To'));
    assert.equal(r.sent[2].json.threadId, MESSAGE.threadId);
    const mime = decodeRaw(r.sent[2].json.raw);
    assert.match(mime, /^To: grace\.replies@navy\.example\r\n/m);
    // Reply-all copies the other recipients but never the mailbox owner.
    assert.match(mime, /^Cc: bob@example\.org, "Carol" <carol@example\.net>\r\n/m);
    assert.match(mime, new RegExp('^Subject: =\\?UTF-8\\?B\\?' + Buffer.from('Re: Zahlen für Q3').toString('base64').replace(/[+/=]/g, '\\$&') + '\\?=\\r\\n', 'm'));
    assert.match(mime, /^In-Reply-To: <CAF1234@mail\.navy\.example>\r\n/m);
    assert.match(mime, /^References: <CAF1000@mail\.navy\.example> <CAF1234@mail\.navy\.example>\r\n/m);
    assert.equal(r.value.threadId, MESSAGE.threadId);
  });

  test('drafts: create, reply draft, list, get, send', async () => {
    const r = await call(`return {
      created: gmail.createDraft({ subject: "later", text: "draft body" }),
      replyDraft: gmail.createReplyDraft("${MESSAGE.id}", "Will do."),
      list: gmail.listDrafts({ maxResults: 3 }),
      got: gmail.getDraft("r-5123456789"),
      sent: gmail.sendDraft("r-5123456789"),
    };`);
    const routes = r.sent.map((s: any) => `${s.method} ${url(s.path).pathname.replace('/gmail/v1/users/me/', '')}`);
    assert.deepEqual(routes, ['POST drafts', `GET messages/${MESSAGE.id}`, 'POST drafts', 'GET drafts', 'GET drafts/r-5123456789', 'POST drafts/send']);
    assert.match(decodeRaw(r.sent[0].json.message.raw), /^Subject: later\r\n/m);
    assert.equal(r.sent[2].json.message.threadId, MESSAGE.threadId);
    assert.match(decodeRaw(r.sent[2].json.message.raw), /^To: grace\.replies@navy\.example\r\n/m);
    assert.deepEqual(r.sent[5].json, { id: 'r-5123456789' });
    assert.deepEqual(r.value.created, { id: 'r-5123456789', messageId: '18c2f0a1b2c3eeee', threadId: '18c2f0a1b2c3eeee' });
    assert.equal(r.value.list.drafts.length, 1);
    assert.equal(r.value.got.message.subject, 'Zahlen für Q3');
    assert.deepEqual(r.value.sent.labelIds, ['SENT']);
  });

  test('labels: list, create, modify a message and a thread', async () => {
    const r = await call(`return {
      labels: gmail.listLabels(),
      created: gmail.createLabel("Projects/Apollo", { labelListVisibility: "labelShowIfUnread" }),
      message: gmail.modifyMessageLabels("${MESSAGE.id}", { add: ["Label_7"], remove: ["UNREAD"] }),
      thread: gmail.modifyThreadLabels("${MESSAGE.threadId}", { add: ["STARRED"] }),
    };`);
    assert.deepEqual(r.sent[1].json, { name: 'Projects/Apollo', labelListVisibility: 'labelShowIfUnread' });
    assert.deepEqual(r.sent[2].json, { addLabelIds: ['Label_7'], removeLabelIds: ['UNREAD'] });
    assert.equal(url(r.sent[3].path).pathname, `/gmail/v1/users/me/threads/${MESSAGE.threadId}/modify`);
    assert.deepEqual(r.value.labels.map((l: any) => [l.id, l.name, l.type]), [['INBOX', 'INBOX', 'system'], ['Label_7', 'Receipts', 'user']]);
    assert.equal(r.value.created.id, 'Label_8');
    assert.deepEqual(r.value.message, { id: MESSAGE.id, labelIds: ['INBOX', 'Label_7'] });
    assert.deepEqual(r.value.thread, { id: MESSAGE.threadId, labelIds: ['INBOX', 'STARRED'] });
  });

  test('triage lists unread inbox threads and describes each by its newest message', async () => {
    const r = await call(`return gmail.triage({ maxResults: 5 });`);
    assert.equal(url(r.sent[0].path).searchParams.get('q'), 'in:inbox is:unread');
    assert.equal(url(r.sent[1].path).searchParams.get('format'), 'metadata');
    assert.deepEqual(r.value, [{ threadId: MESSAGE.threadId, messageId: MESSAGE.id, from: { name: 'Hopper, Grace', email: 'grace@navy.example' }, subject: 'Zahlen für Q3', date: 'Tue, 14 Nov 2023 22:13:20 +0000', snippet: MESSAGE.snippet, unread: true, labelIds: MESSAGE.labelIds, messageCount: 1 }]);
  });

  test("downloadAttachment writes the decoded bytes after the caller's fs.write check", async () => {
    const r = await call(`mkdir("/inbox"); const saved = gmail.downloadAttachment("${MESSAGE.id}", "ANGjdJ8attachment-1", "/inbox/q3.csv"); return { saved, text: readText("/inbox/q3.csv") };`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(url(r.sent[0].path).pathname, `/gmail/v1/users/me/messages/${MESSAGE.id}/attachments/ANGjdJ8attachment-1`);
    assert.deepEqual(r.value, { saved: { path: '/inbox/q3.csv', bytesWritten: ATTACHMENT_TEXT.length }, text: ATTACHMENT_TEXT });
    const denied = await call(`const d = (() => { try { gmail.downloadAttachment("${MESSAGE.id}", "ANGjdJ8attachment-1", "/q3.csv"); return null; } catch (e) { return { name: e.name, capability: e.capability }; } })();
      return { d, exists: exists("/q3.csv") };`);
    assert.deepEqual(denied.value, { d: { name: 'PermissionDeniedError', capability: 'fs.write' }, exists: false });
  });

  test('multi-megabyte attachments are sent and saved within the default run memory', async () => {
    const size = 2 * 1024 * 1024;
    const sent = await call(`mkdir("/outbox"); writeText("/outbox/big.txt", "ab".repeat(${size / 2})); return gmail.sendEmail({ to: "bob@example.org", subject: "big", text: "see attached", attachments: ["/outbox/big.txt"] as any });`);
    assert.equal(sent.error, undefined, JSON.stringify(sent.error));
    const parts = base64Parts(decodeRaw(sent.sent[0].json.raw));
    assert.equal(parts[1].length, size);
    assert.equal(parts[1], 'ab'.repeat(size / 2));
    c.api.handle(() => ({ json: { attachmentId: 'ANGjdJ8big', size, data: Buffer.alloc(size, 0xfe).toString('base64url') } }));
    try {
      const saved = await call(`mkdir("/inbox"); const r = gmail.downloadAttachment("${MESSAGE.id}", "ANGjdJ8big", "/inbox/big.bin"); return { r, size: size("/inbox/big.bin"), head: Array.from(readBytes("/inbox/big.bin", 0, 4)) };`);
      assert.equal(saved.error, undefined, JSON.stringify(saved.error));
      assert.deepEqual(saved.value, { r: { path: '/inbox/big.bin', bytesWritten: size }, size, head: [0xfe, 0xfe, 0xfe, 0xfe] });
    } finally {
      c.api.handle(gmailHandler);
    }
  });

  test('without GOOGLE_ACCESS_TOKEN: missing_token and nothing is sent', async () => {
    const r = await call(`return gmail.searchThreads("x");`, false);
    assert.equal(r.error.name, 'GmailError');
    assert.equal(r.error.code, 'missing_token');
    assert.equal(r.error.status, 0);
    assert.equal(r.sent.length, 0);
  });

  test('a provided capability the Blueprint does not grant is denied before any request', async () => {
    const r = await call(`return gmail.deleteDraft("r-5123456789");`);
    assert.equal(r.error.name, 'PermissionDeniedError');
    assert.equal(r.error.capability, 'svc/gmail.deleteDraft');
    assert.equal(r.sent.length, 0);
  });

  test("errors: Google's error answers map to GmailError codes with the reason and retry metadata", async () => {
    const google = (code: number, status: string, reason: string) => ({ error: { code, message: `${reason} message`, errors: [{ message: `${reason} message`, domain: 'global', reason }], status } });
    const cases: Array<[any, string, number, string | null, number | null]> = [
      [{ status: 401, json: google(401, 'UNAUTHENTICATED', 'authError') }, 'unauthorized', 401, 'authError', null],
      [{ status: 403, json: google(403, 'PERMISSION_DENIED', 'insufficientPermissions') }, 'forbidden', 403, 'insufficientPermissions', null],
      [{ status: 403, json: google(403, 'PERMISSION_DENIED', 'userRateLimitExceeded') }, 'rate_limited', 403, 'userRateLimitExceeded', null],
      [{ status: 404, json: google(404, 'NOT_FOUND', 'notFound') }, 'not_found', 404, 'notFound', null],
      [{ status: 429, headers: { 'retry-after': '30' }, json: google(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded') }, 'rate_limited', 429, 'rateLimitExceeded', 30],
      [{ status: 500, json: google(500, 'INTERNAL', 'backendError') }, 'http_error', 500, 'backendError', null],
      [{ status: 200, body: '<html>not json</html>' }, 'invalid_response', 200, null, null],
    ];
    try {
      for (const [reply, code, status, reason, retry] of cases) {
        c.api.handle(() => reply);
        const r = await call(`return gmail.getMessage("${MESSAGE.id}");`);
        assert.deepEqual([r.error.name, r.error.code, r.error.status, r.error.reason, r.error.retryAfterSeconds], ['GmailError', code, status, reason, retry], JSON.stringify(reply));
        assert.ok(!JSON.stringify(r.error).includes(TOKEN), 'the token never appears in an error');
      }
    } finally {
      c.api.handle(gmailHandler);
    }
  });
});
