// @svc/notion installed into a real server and called from programs against a Notion
// stand-in on api.notion.com: requests (method, path, query, JSON or multipart body, the
// token and Notion-Version), normalised results, blocks checked per page, batches that stop
// at the first failure, the upload behind the caller's own fs.read rule, error mapping, the
// missing token and denials that send nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCurated, type Curated } from '../../support/curated';
import { BLOCK, DATABASE, DATA_SOURCE, FOREIGN_BLOCK, MISSING, NESTED_BLOCK, NOTION_HOSTS, OTHER_PAGE, PAGE, QUERY, UPLOAD, USER, VIEW, notionHandler } from '../../support/curated/notion';

const TOKEN = 'ntn_test_token';
const secrets = { NOTION_ACCESS_TOKEN: TOKEN };
const compact = (id: string) => id.replace(/-/g, '');

function program(body: string): string {
  return `import notion from "@svc/notion";
import { writeText, mkdir } from "svc:fs";
export function main() {
  try { return { value: (() => { ${body} })() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, notionCode: e.notionCode, requestId: e.requestId, retryAfterSeconds: e.retryAfterSeconds, capability: e.capability, message: e.message } }; }
}`;
}

describe('@svc/notion', () => {
  let c: Curated;
  const granted = [
    'search', 'fetch', 'fetchPage', 'readPageMarkdown', 'createPage', 'createPages', 'updatePage', 'appendPageMarkdown', 'appendBlockChildren', 'listBlockChildren',
    'getBlock', 'updateBlock', 'createComment', 'getComments', 'getSelf', 'listUsers', 'fetchDatabase', 'fetchDataSource', 'queryDataSource', 'listViews', 'queryView',
    'continueViewQuery', 'uploadFile', 'movePages', 'movePage', 'restorePage', 'getPageProperty', 'replacePageMarkdown', 'updatePageMarkdown', 'trashBlock', 'restoreBlock',
    'getUser', 'createDatabase', 'restoreDatabase', 'updateDataSource', 'listDataSourceTemplates', 'createView', 'updateView', 'queryMeetingNotes', 'getFileUpload', 'listFileUploads',
  ];
  before(async () => {
    c = await startCurated({
      package: '@svc/notion',
      hosts: NOTION_HOSTS,
      secret: 'NOTION_ACCESS_TOKEN',
      handler: notionHandler,
      extra: { vfs: { mode: 'ephemeral' } },
      main: [
        ...granted.map((name) => ({ capability: `svc/notion.${name}` })),
        // trashPage only for one page; trashDatabase not at all.
        { capability: 'svc/notion.trashPage', filter: `pageId == "${OTHER_PAGE}"` },
        { capability: 'fs.read', filter: 'path glob "/in/*"' },
        { capability: 'fs.write' },
        { capability: 'fs.mkdir' },
      ],
    });
  });
  after(async () => {
    await c?.close();
  });

  const call = (body: string, withSecret = true) => c.call(program(body), withSecret ? { secrets } : {});
  const route = (s: any) => `${s.method} ${new URL(s.path, 'https://api.notion.com').pathname}`;

  test('search posts the query with the token and Notion-Version, and pages with next_cursor', async () => {
    const r = await call(`return notion.search("planning", { filter: "page", sort: "descending", pageSize: 10, pageToken: "c1" });`);
    const [req] = r.sent;
    assert.equal(route(req), 'POST /v1/search');
    assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req.headers['notion-version'], '2025-09-03');
    assert.deepEqual(req.json, { query: 'planning', filter: { property: 'object', value: 'page' }, sort: { direction: 'descending', timestamp: 'last_edited_time' }, page_size: 10, start_cursor: 'c1' });
    assert.deepEqual(r.value.items.map((i: any) => [i.kind, i.id, i.title]), [['page', PAGE, 'Quarterly planning'], ['data_source', DATA_SOURCE, 'Tasks']]);
    assert.equal(r.value.nextPageToken, 'cursor-2');
  });

  test('search with no arguments lists everything shared (no query sent)', async () => {
    const r = await call(`return notion.search();`);
    assert.equal(r.sent.length, 1);
    assert.equal(route(r.sent[0]), 'POST /v1/search');
    assert.deepEqual(r.sent[0].json, {});
    assert.equal(r.value.items.length, 2);
  });

  test('fetchPage takes a Notion URL and flattens properties; readPageMarkdown reads the Markdown endpoint', async () => {
    const r = await call(`return { page: notion.fetchPage("https://www.notion.so/acme/Quarterly-planning-${compact(PAGE)}?pvs=4"), md: notion.readPageMarkdown("${compact(PAGE)}", { includeTranscript: true }) };`);
    assert.deepEqual(r.sent.map((s: any) => s.path), [`/v1/pages/${PAGE}`, `/v1/pages/${PAGE}/markdown?include_transcript=true`]);
    assert.equal(r.value.page.title, 'Quarterly planning');
    assert.deepEqual(r.value.page.properties, { title: 'Quarterly planning', Owner: [USER], Due: { start: '2026-02-01', end: null } });
    assert.deepEqual(r.value.page.parent, { type: 'workspace', id: null });
    assert.equal(r.value.page.icon, '📝');
    assert.deepEqual(r.value.md, { id: PAGE, markdown: '# Quarterly planning\n\n- ship', truncated: false, unknownBlockIds: [] });
  });

  test('createPage under a page sends title and Markdown; a data-source row finds the title property first', async () => {
    const r = await call(`return { a: notion.createPage("${PAGE}", { title: "Retro", markdown: "## Went well" }), b: notion.createPage("${DATA_SOURCE}", { parentType: "data_source", title: "Write report", properties: { Status: { select: { name: "Open" } } } }) };`);
    assert.deepEqual(r.sent.map(route), ['POST /v1/pages', `GET /v1/data_sources/${DATA_SOURCE}`, 'POST /v1/pages']);
    assert.deepEqual(r.sent[0].json, { parent: { type: 'page_id', page_id: PAGE }, properties: { title: { title: [{ type: 'text', text: { content: 'Retro' } }] } }, markdown: '## Went well' });
    assert.deepEqual(r.sent[2].json, { parent: { type: 'data_source_id', data_source_id: DATA_SOURCE }, properties: { Status: { select: { name: 'Open' } }, Name: { title: [{ type: 'text', text: { content: 'Write report' } }] } } });
    assert.equal(r.value.a.title, 'Retro');
    assert.deepEqual(r.value.b.parent, { type: 'data_source', id: DATA_SOURCE });
  });

  test('Markdown edits and page updates send the documented bodies', async () => {
    const r = await call(`notion.appendPageMarkdown("${PAGE}", "## More", { after: "- ship" });
      notion.updatePage("${PAGE}", { properties: { Done: { checkbox: true } }, isLocked: true });
      return notion.readPageMarkdown("${PAGE}").markdown;`);
    assert.deepEqual(r.sent.map(route), [`PATCH /v1/pages/${PAGE}/markdown`, `PATCH /v1/pages/${PAGE}`, `GET /v1/pages/${PAGE}/markdown`]);
    assert.deepEqual(r.sent[0].json, { type: 'insert_content', insert_content: { content: '## More', after: '- ship' } });
    assert.deepEqual(r.sent[1].json, { properties: { Done: { checkbox: true } }, is_locked: true });
  });

  test('block operations confirm the block lies in the named page; a block of another page is refused', async () => {
    const r = await call(`return { added: notion.appendBlockChildren("${PAGE}", [{ type: "divider", divider: {} }], { blockId: "${NESTED_BLOCK}" }), block: notion.getBlock("${PAGE}", "${NESTED_BLOCK}"), children: notion.listBlockChildren("${PAGE}") };`);
    assert.deepEqual(r.sent.map(route), [
      `GET /v1/blocks/${NESTED_BLOCK}`, `GET /v1/blocks/${BLOCK}`, `PATCH /v1/blocks/${NESTED_BLOCK}/children`,
      `GET /v1/blocks/${NESTED_BLOCK}`, `GET /v1/blocks/${BLOCK}`,
      `GET /v1/blocks/${PAGE}/children`,
    ]);
    assert.deepEqual(r.sent[2].json, { children: [{ type: 'divider', divider: {} }] });
    assert.equal(r.value.added[0].type, 'divider');
    assert.equal(r.value.block.text, 'nested');
    assert.equal(r.value.children.items[0].text, 'top');
    const foreign = await call(`return notion.updateBlock("${PAGE}", "${FOREIGN_BLOCK}", { paragraph: { rich_text: [] } });`);
    assert.equal(foreign.error.code, 'invalid_argument');
    assert.deepEqual(foreign.sent.map(route), [`GET /v1/blocks/${FOREIGN_BLOCK}`]);
  });

  test('comments: create on the page, list them', async () => {
    const r = await call(`return { made: notion.createComment("${PAGE}", "Ship it"), list: notion.getComments("${PAGE}", { pageSize: 20 }) };`);
    assert.deepEqual(r.sent[0].json, { parent: { page_id: PAGE }, rich_text: [{ type: 'text', text: { content: 'Ship it' } }] });
    assert.equal(r.sent[1].path, `/v1/comments?block_id=${PAGE}&page_size=20`);
    assert.equal(r.value.made.text, 'Ship it');
    assert.equal(r.value.list.items[0].text, 'Looks good');
    assert.equal(r.value.list.items[0].createdBy, USER);
  });

  test('databases, data sources, views and users', async () => {
    const r = await call(`return { db: notion.fetchDatabase("${DATABASE}"), ds: notion.fetchDataSource("${DATA_SOURCE}"),
      rows: notion.queryDataSource("${DATA_SOURCE}", { filter: { property: "Status", select: { equals: "Open" } }, sorts: [{ property: "Name", direction: "ascending" }], pageSize: 5 }),
      views: notion.listViews("${DATABASE}"), q: notion.queryView("${VIEW}", { pageSize: 1 }), more: notion.continueViewQuery("${VIEW}", "${QUERY}", "view-2"),
      me: notion.getSelf(), users: notion.listUsers() };`);
    const rows = r.sent.find((s: any) => route(s) === `POST /v1/data_sources/${DATA_SOURCE}/query`);
    assert.ok(rows, 'the data source query was sent');
    assert.deepEqual(rows.json, { filter: { property: 'Status', select: { equals: 'Open' } }, sorts: [{ property: 'Name', direction: 'ascending' }], page_size: 5 });
    assert.ok(r.sent.some((s: any) => s.path === `/v1/views?database_id=${DATABASE}`));
    assert.ok(r.sent.some((s: any) => s.path === `/v1/views/${VIEW}/queries/${QUERY}?start_cursor=view-2`));
    assert.deepEqual(r.value.db.dataSources, [{ id: DATA_SOURCE, name: 'Tasks' }]);
    assert.equal(r.value.ds.databaseId, DATABASE);
    assert.deepEqual(r.value.ds.properties.Status, { id: 'St%3A', type: 'select', options: ['Open', 'Done'] });
    assert.equal(r.value.rows.items[0].properties.Status, 'Open');
    assert.equal(r.value.rows.nextPageToken, 'rows-2');
    assert.equal(r.value.views.items[0].dataSourceId, DATA_SOURCE);
    assert.deepEqual(r.value.q, { queryId: QUERY, viewId: VIEW, totalCount: 2, pageIds: [PAGE], nextPageToken: 'view-2', expiresAt: '2026-01-02T04:00:00.000Z' });
    assert.deepEqual(r.value.more, { queryId: QUERY, viewId: VIEW, totalCount: null, pageIds: [OTHER_PAGE], nextPageToken: null, expiresAt: null });
    assert.equal(r.value.me.type, 'bot');
    assert.equal(r.value.users.items[0].email, 'ada@example.com');
  });

  test('fetch with kind "any" tries page, then database', async () => {
    const r = await call(`return notion.fetch("${DATABASE}");`);
    assert.deepEqual(r.sent.map(route), [`GET /v1/pages/${DATABASE}`, `GET /v1/databases/${DATABASE}`]);
    assert.equal(r.value.kind, 'database');
    assert.equal(r.value.object.title, 'Tasks');
  });

  test('the other operations call the documented endpoints with the documented bodies', async () => {
    const r = await call(`return {
      moved: notion.movePage("${PAGE}", "${DATA_SOURCE}", { parentType: "data_source" }),
      movedAll: notion.movePages([{ pageId: "${PAGE}", parentId: "${OTHER_PAGE}" }]),
      restored: notion.restorePage("${PAGE}"),
      prop: notion.getPageProperty("${PAGE}", "title", { pageSize: 50 }),
      replaced: notion.replacePageMarkdown("${PAGE}", "# New", { allowDeletingContent: false }),
      edited: notion.updatePageMarkdown("${PAGE}", [{ oldStr: "- ship", newStr: "- shipped", replaceAll: true }]),
      updated: notion.updateBlock("${PAGE}", "${BLOCK}", { paragraph: { rich_text: [{ text: { content: "changed" } }] } }),
      trashed: notion.trashBlock("${PAGE}", "${BLOCK}"),
      back: notion.restoreBlock("${PAGE}", "${BLOCK}"),
      user: notion.getUser("${USER}"),
      db: notion.createDatabase("${PAGE}", "Tasks", { Name: { title: {} } }, { isInline: true }),
      dbBack: notion.restoreDatabase("${DATABASE}"),
      ds: notion.updateDataSource("${DATA_SOURCE}", { title: "Todo", properties: { Done: { checkbox: {} } } }),
      templates: notion.listDataSourceTemplates("${DATA_SOURCE}", { name: "Bug" }),
      view: notion.createView("${DATA_SOURCE}", "${DATABASE}", { name: "Board", type: "board" }),
      viewChanged: notion.updateView("${VIEW}", { name: "Renamed" }),
      notes: notion.queryMeetingNotes({ limit: 3 }),
      upload: notion.getFileUpload("${UPLOAD}"),
      uploads: notion.listFileUploads({ status: "uploaded" }),
    };`);
    const sent = r.sent.map((s: any) => [s.method, s.path, s.json]);
    assert.deepEqual(sent, [
      ['POST', `/v1/pages/${PAGE}/move`, { parent: { type: 'data_source_id', data_source_id: DATA_SOURCE } }],
      ['POST', `/v1/pages/${PAGE}/move`, { parent: { type: 'page_id', page_id: OTHER_PAGE } }],
      ['PATCH', `/v1/pages/${PAGE}`, { in_trash: false }],
      ['GET', `/v1/pages/${PAGE}/properties/title?page_size=50`, undefined],
      ['PATCH', `/v1/pages/${PAGE}/markdown`, { type: 'replace_content', replace_content: { new_str: '# New', allow_deleting_content: false } }],
      ['PATCH', `/v1/pages/${PAGE}/markdown`, { type: 'update_content', update_content: { content_updates: [{ old_str: '- ship', new_str: '- shipped', replace_all_matches: true }] } }],
      ['GET', `/v1/blocks/${BLOCK}`, undefined],
      ['PATCH', `/v1/blocks/${BLOCK}`, { paragraph: { rich_text: [{ text: { content: 'changed' } }] } }],
      ['GET', `/v1/blocks/${BLOCK}`, undefined],
      ['PATCH', `/v1/blocks/${BLOCK}`, { in_trash: true }],
      ['GET', `/v1/blocks/${BLOCK}`, undefined],
      ['PATCH', `/v1/blocks/${BLOCK}`, { in_trash: false }],
      ['GET', `/v1/users/${USER}`, undefined],
      ['POST', '/v1/databases', { parent: { type: 'page_id', page_id: PAGE }, title: [{ type: 'text', text: { content: 'Tasks' } }], initial_data_source: { properties: { Name: { title: {} } } }, is_inline: true }],
      ['PATCH', `/v1/databases/${DATABASE}`, { in_trash: false }],
      ['PATCH', `/v1/data_sources/${DATA_SOURCE}`, { title: [{ type: 'text', text: { content: 'Todo' } }], properties: { Done: { checkbox: {} } } }],
      ['GET', `/v1/data_sources/${DATA_SOURCE}/templates?name=Bug`, undefined],
      ['POST', '/v1/views', { data_source_id: DATA_SOURCE, database_id: DATABASE, name: 'Board', type: 'board' }],
      ['PATCH', `/v1/views/${VIEW}`, { name: 'Renamed' }],
      ['POST', '/v1/blocks/meeting_notes/query', { limit: 3 }],
      ['GET', `/v1/file_uploads/${UPLOAD}`, undefined],
      ['GET', '/v1/file_uploads?status=uploaded', undefined],
    ]);
    assert.equal(r.value.moved.parent.type, 'data_source');
    assert.equal(r.value.movedAll.failed, null);
    assert.deepEqual(r.value.prop, { type: 'title', value: 'Quarterly planning', nextPageToken: null });
    assert.equal(r.value.trashed.inTrash, true);
    assert.equal(r.value.user.name, 'Ada');
    assert.equal(r.value.db.isInline, true);
    assert.equal(r.value.ds.title, 'Todo');
    assert.deepEqual(r.value.templates.items, [{ id: PAGE, name: 'Bug report', isDefault: true }]);
    assert.equal(r.value.view.type, 'board');
    assert.equal(r.value.viewChanged.name, 'Renamed');
    assert.deepEqual(r.value.notes, [{ id: BLOCK, title: 'Standup', status: 'notes_ready', summaryBlockId: NESTED_BLOCK, notesBlockId: FOREIGN_BLOCK, transcriptBlockId: null }]);
    assert.equal(r.value.upload.status, 'uploaded');
    assert.equal(r.value.uploads.items.length, 1);
  });

  test('createPages runs in order and stops at the first failure', async () => {
    const r = await call(`return notion.createPages([{ parentId: "${PAGE}", title: "One" }, { parentId: "${PAGE}", title: "bad" }, { parentId: "${PAGE}", title: "Three" }]);`);
    assert.equal(r.sent.length, 2);
    assert.deepEqual(r.value.pages.map((p: any) => p.title), ['One']);
    assert.equal(r.value.failed.index, 1);
    assert.equal(r.value.failed.code, 'http_error');
    assert.equal(r.value.failed.status, 400);
  });

  test("uploadFile sends the file in two steps after the caller's own fs.read check", async () => {
    const r = await call(`mkdir("/in"); writeText("/in/report.pdf", "PDF-1.7 bytes!"); return notion.uploadFile("/in/report.pdf");`);
    assert.deepEqual(r.sent.map(route), ['POST /v1/file_uploads', `POST /v1/file_uploads/${UPLOAD}/send`]);
    assert.deepEqual(r.sent[0].json, { mode: 'single_part', filename: 'report.pdf', content_type: 'application/pdf' });
    const send = r.sent[1];
    const boundary = /boundary=(.+)$/.exec(String(send.headers['content-type']))?.[1];
    assert.ok(boundary, String(send.headers['content-type']));
    assert.ok(send.body.includes(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="report.pdf"\r\nContent-Type: application/pdf\r\n\r\nPDF-1.7 bytes!\r\n--${boundary}--`));
    assert.equal(r.value.status, 'uploaded');
    assert.equal(r.value.id, UPLOAD);
    const denied = await call(`mkdir("/private"); writeText("/private/x.pdf", "secret"); return notion.uploadFile("/private/x.pdf");`);
    assert.equal(denied.error.name, 'PermissionDeniedError');
    assert.equal(denied.error.capability, 'fs.read');
    assert.equal(denied.sent.length, 0);
  });

  test('without NOTION_ACCESS_TOKEN: missing_token and nothing is sent', async () => {
    const r = await call(`return notion.getSelf();`, false);
    assert.equal(r.error.name, 'NotionError');
    assert.equal(r.error.code, 'missing_token');
    assert.equal(r.sent.length, 0);
  });

  test('an ungranted capability and a non-matching filter are denied before any request', async () => {
    const a = await call(`return notion.trashDatabase("${DATABASE}");`);
    assert.equal(a.error.name, 'PermissionDeniedError');
    assert.equal(a.error.capability, 'svc/notion.trashDatabase');
    const b = await call(`return notion.trashPage("${PAGE}");`);
    assert.equal(b.error.name, 'PermissionDeniedError');
    assert.equal(b.error.capability, 'svc/notion.trashPage');
    const ok = await call(`return notion.trashPage("${compact(OTHER_PAGE)}").inTrash;`);
    assert.equal(ok.value, true);
    assert.equal(a.sent.length + b.sent.length, 0);
  });

  test('bad arguments are refused before any request, naming the field', async () => {
    const r = await call(`return notion.fetchPage("not-an-id");`);
    assert.equal(r.error.code, 'invalid_argument');
    assert.match(r.error.message, /pageId/);
    assert.equal(r.sent.length, 0);
  });

  test("Notion's 401, 403, 404 and 429 (Retry-After) map to codes with Notion's code and request id", async () => {
    const missing = await call(`return notion.fetchPage("${MISSING}");`);
    assert.deepEqual([missing.error.code, missing.error.status, missing.error.notionCode, missing.error.requestId], ['not_found', 404, 'object_not_found', 'req-123']);
    const cases: Array<[number, string, string]> = [[401, 'unauthorized', 'unauthorized'], [403, 'restricted_resource', 'forbidden'], [429, 'rate_limited', 'rate_limited'], [500, 'internal_server_error', 'http_error']];
    for (const [status, notionCode, code] of cases) {
      c.api.handle(() => ({ status, headers: status === 429 ? { 'retry-after': '7' } : ({} as Record<string, string>), json: { object: 'error', status, code: notionCode, message: 'no', request_id: 'req-9' } }));
      const r = await call(`return notion.listUsers();`);
      assert.equal(r.error.code, code);
      assert.equal(r.error.status, status);
      assert.equal(r.error.notionCode, notionCode);
      assert.equal(r.error.retryAfterSeconds, status === 429 ? 7 : null);
    }
    c.api.handle(() => ({ status: 200, body: 'not json' }));
    const bad = await call(`return notion.listUsers();`);
    assert.equal(bad.error.code, 'invalid_response');
    c.api.handle(notionHandler);
  });
});
