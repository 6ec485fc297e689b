// @svc/google-drive installed into a real server and called from programs against a Drive
// API v3 stand-in on www.googleapis.com: requests with the shared Google token, normalised
// files, text export, downloads behind the caller's fs.write rule, a resumable upload in
// 8 MiB chunks behind the caller's fs.read rule (resumed from the Range Drive reports),
// sharing narrowed by principal, trash and restore, error mapping, the missing token and
// denials that send nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { derivedRequires, startCurated, type Curated } from '../../support/curated';
import { DOC_TEXT, FIRST_STORED, GOOGLE_HOST, NOTES_TEXT, PDF_BYTES, UPLOAD_ID, driveHandler, upload } from '../../support/curated/google-drive';

const TOKEN = 'ya29.test-drive-token';
const secrets = { GOOGLE_ACCESS_TOKEN: TOKEN };
const GRANTED = ['copyFile', 'createFolder', 'downloadFile', 'getFile', 'listPermissions', 'listRecentFiles', 'moveFile', 'readText', 'renameFile', 'restoreFile', 'searchFiles', 'trashFile', 'uploadFile'];
const UNIT = 256 * 1024;

function program(body: string): string {
  return `import drive from "@svc/google-drive";
import { readText, write, mkdir, exists } from "svc:fs";
export function main() {
  try { return { value: (() => { ${body} })() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds, reason: e.reason, googleStatus: e.googleStatus, capability: e.capability, message: e.message } }; }
}`;
}

const url = (path: string) => new URL(path, `https://${GOOGLE_HOST}`);

describe('@svc/google-drive', () => {
  let c: Curated;
  before(async () => {
    c = await startCurated({
      package: '@svc/google-drive',
      hosts: [GOOGLE_HOST],
      secret: 'GOOGLE_ACCESS_TOKEN',
      handler: driveHandler,
      extra: { vfs: { mode: 'ephemeral' } },
      main: [
        ...GRANTED.map((name) => ({ capability: `svc/google-drive.${name}` })),
        // Sharing only inside example.com; removePermission is not granted.
        { capability: 'svc/google-drive.shareFile', filter: 'principal glob "*@example.com"' },
        { capability: 'fs.read', filter: 'path glob "/uploads/*" or path glob "/downloads/*"' },
        { capability: 'fs.write', filter: 'path glob "/uploads/*" or path glob "/downloads/*"' },
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
    assert.deepEqual(derivedRequires(c.home, '@svc/google-drive'), [
      { capability: 'fs.read' },
      { capability: 'fs.stat' },
      { capability: 'fs.write' },
      { capability: 'http.delete', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.download', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.get', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.patch', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.post', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.put', filter: 'host == "www.googleapis.com"' },
      { capability: 'secrets.get', filter: 'name == "GOOGLE_ACCESS_TOKEN"' },
    ]);
  });

  test('searchFiles with no arguments lists every file not in the trash, newest first', async () => {
    const r = await call(`return drive.searchFiles();`);
    assert.equal(r.sent.length, 1);
    const q = url(r.sent[0].path).searchParams;
    assert.equal(q.get('q'), 'trashed = false');
    assert.equal(q.get('orderBy'), 'modifiedTime desc');
    assert.equal(r.value.files.length > 0, true);
  });

  test('searchFiles builds a Drive query over name and content, with the Bearer token, on all drives', async () => {
    const r = await call(`return { hits: drive.searchFiles("it's plan", { folderId: "1FolderAbc", pageSize: 10 }), names: drive.searchFiles("plan", { nameOnly: true, mimeType: "application/vnd.google-apps.document" }) };`);
    assert.deepEqual(r.sent.map((s: any) => [s.method, url(s.path).pathname]), [['GET', '/drive/v3/files'], ['GET', '/drive/v3/files']]);
    assert.ok(r.sent.every((s: any) => s.headers.authorization === `Bearer ${TOKEN}`));
    const q = url(r.sent[0].path).searchParams;
    assert.equal(q.get('q'), "(name contains 'it\\'s plan' or fullText contains 'it\\'s plan') and '1FolderAbc' in parents and trashed = false");
    assert.equal(q.get('pageSize'), '10');
    assert.equal(q.get('orderBy'), null, 'Drive refuses orderBy with fullText');
    assert.equal(q.get('supportsAllDrives'), 'true');
    assert.equal(q.get('includeItemsFromAllDrives'), 'true');
    assert.match(q.get('fields') ?? '', /^nextPageToken,incompleteSearch,files\(id,name,mimeType,/);
    const q2 = url(r.sent[1].path).searchParams;
    assert.equal(q2.get('q'), "name contains 'plan' and mimeType = 'application/vnd.google-apps.document' and trashed = false");
    assert.equal(q2.get('orderBy'), 'modifiedTime desc');
    assert.equal(r.value.hits.nextPageToken, 'files-page-2');
    const [doc, notes] = r.value.hits.files;
    assert.deepEqual([doc.id, doc.name, doc.googleType, doc.folder, doc.size, doc.starred, doc.owners], ['1DocAbc', 'Plan', true, false, null, true, [{ emailAddress: 'ada@example.com', displayName: 'Ada Lovelace' }]]);
    assert.deepEqual([notes.size, notes.mimeType], [NOTES_TEXT.length, 'text/markdown']);
  });

  test('listRecentFiles and getFile', async () => {
    const r = await call(`return { recent: drive.listRecentFiles({ pageSize: 3 }), file: drive.getFile("1PdfAbc") };`);
    const q = url(r.sent[0].path).searchParams;
    assert.equal(q.get('orderBy'), 'recency desc');
    assert.equal(q.get('q'), "trashed = false and mimeType != 'application/vnd.google-apps.folder'");
    assert.equal(url(r.sent[1].path).pathname, '/drive/v3/files/1PdfAbc');
    assert.equal(r.value.recent.files.length, 2);
    assert.deepEqual([r.value.file.name, r.value.file.size, r.value.file.parents], ['contract.pdf', PDF_BYTES.length, ['root0']]);
  });

  test('readText exports a Google Doc as text/plain and reads a stored text file as is', async () => {
    const r = await call(`return { doc: drive.readText("1DocAbc"), notes: drive.readText("1TxtAbc") };`);
    assert.deepEqual(r.sent.map((s: any) => url(s.path).pathname), ['/drive/v3/files/1DocAbc', '/drive/v3/files/1DocAbc/export', '/drive/v3/files/1TxtAbc', '/drive/v3/files/1TxtAbc']);
    assert.equal(url(r.sent[1].path).searchParams.get('mimeType'), 'text/plain');
    assert.equal(url(r.sent[3].path).searchParams.get('alt'), 'media');
    assert.deepEqual(r.value.doc, { fileId: '1DocAbc', name: 'Plan', mimeType: 'application/vnd.google-apps.document', exportedAs: 'text/plain', text: DOC_TEXT });
    assert.deepEqual(r.value.notes, { fileId: '1TxtAbc', name: 'notes.md', mimeType: 'text/markdown', exportedAs: null, text: NOTES_TEXT });
    const pdf = await call(`return drive.readText("1PdfAbc");`);
    assert.equal(pdf.error.code, 'invalid_argument', 'a PDF has no text form');
  });

  test("downloadFile writes into the file area after the caller's fs.write check; Google Docs are exported", async () => {
    const r = await call(`mkdir("/downloads"); const pdf = drive.downloadFile("1PdfAbc", "/downloads/contract.pdf"); const doc = drive.downloadFile("1DocAbc", "/downloads/plan.pdf");
      return { pdf, doc, text: readText("/downloads/contract.pdf") };`);
    assert.deepEqual(r.sent.map((s: any) => url(s.path).pathname), ['/drive/v3/files/1PdfAbc', '/drive/v3/files/1PdfAbc', '/drive/v3/files/1DocAbc', '/drive/v3/files/1DocAbc/export']);
    assert.equal(url(r.sent[1].path).searchParams.get('alt'), 'media');
    assert.equal(r.sent[1].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(url(r.sent[3].path).searchParams.get('mimeType'), 'application/pdf');
    assert.deepEqual(r.value.pdf, { fileId: '1PdfAbc', name: 'contract.pdf', path: '/downloads/contract.pdf', bytesWritten: PDF_BYTES.length, contentType: 'application/pdf', exportedAs: null });
    assert.equal(r.value.doc.exportedAs, 'application/pdf');
    assert.equal(r.value.text, PDF_BYTES);
    const denied = await call(`return { d: (() => { try { drive.downloadFile("1PdfAbc", "/contract.pdf"); return null; } catch (e) { return [e.name, e.capability]; } })(), exists: exists("/contract.pdf") };`);
    assert.deepEqual(denied.value, { d: ['PermissionDeniedError', 'fs.write'], exists: false });
    assert.equal(denied.sent.length, 0);
  });

  test("uploadFile sends a resumable upload in chunks after the caller's fs.read check, resuming from Drive's Range", async () => {
    // 256 KiB chunks: the default 8 MiB chunk does not fit a run's default 50 MB memory today (see the report).
    const size = 2 * UNIT + 1000;
    const r = await call(`mkdir("/uploads"); write("/uploads/big.txt", new Uint8Array(${size}).fill(97)); return drive.uploadFile("/uploads/big.txt", { parentId: "1FolderAbc", chunkSize: ${UNIT} });`);
    assert.deepEqual(r.sent.map((s: any) => s.method), ['POST', 'PUT', 'PUT', 'PUT']);
    const start = url(r.sent[0].path);
    assert.equal(start.pathname, '/upload/drive/v3/files');
    assert.equal(start.searchParams.get('uploadType'), 'resumable');
    assert.ok(r.sent.every((s: any) => s.headers.authorization === `Bearer ${TOKEN}`));
    assert.deepEqual(upload.metadata, { body: { name: 'big.txt', mimeType: 'text/plain', parents: ['1FolderAbc'] }, type: 'text/plain', length: String(size) });
    assert.ok(r.sent.slice(1).every((s: any) => url(s.path).searchParams.get('upload_id') === UPLOAD_ID));
    assert.deepEqual(upload.chunks, [
      { range: `bytes 0-${UNIT - 1}/${size}`, length: UNIT },
      // Drive stored only FIRST_STORED bytes of the first chunk, so the next one starts there.
      { range: `bytes ${FIRST_STORED}-${FIRST_STORED + UNIT - 1}/${size}`, length: UNIT },
      { range: `bytes ${FIRST_STORED + UNIT}-${size - 1}/${size}`, length: size - FIRST_STORED - UNIT },
    ]);
    assert.deepEqual([r.value.id, r.value.name, r.value.size, r.value.parents], ['1UploadedAbc', 'big.txt', size, ['1FolderAbc']]);
  });

  test('uploadFile sends a small file as one chunk and an empty file as one empty chunk', async () => {
    const r = await call(`mkdir("/uploads"); write("/uploads/empty.txt", ""); write("/uploads/small.csv", "a,b\\n1,2\\n"); return { empty: drive.uploadFile("/uploads/empty.txt"), small: drive.uploadFile("/uploads/small.csv", { name: "data.csv" }) };`);
    assert.equal(r.sent.length, 4);
    assert.equal(r.sent[1].headers['content-range'], 'bytes */0');
    assert.equal(r.sent[3].headers['content-range'], 'bytes 0-7/8');
    assert.equal(r.sent[3].body, 'a,b\n1,2\n');
    assert.deepEqual([r.value.empty.size, r.value.small.name, r.value.small.mimeType], [0, 'data.csv', 'text/csv']);
  });

  test("an upload outside the caller's fs.read rule is denied before anything is read or sent", async () => {
    const r = await call(`return drive.uploadFile("/secrets/key.pem");`);
    assert.deepEqual([r.error.name, r.error.capability], ['PermissionDeniedError', 'fs.read']);
    assert.equal(r.sent.length, 0);
  });

  test('folders, move, rename, copy, trash and restore', async () => {
    const r = await call(`return {
      folder: drive.createFolder("Reports"),
      moved: drive.moveFile("1TxtAbc", "1FolderAbc"),
      renamed: drive.renameFile("1TxtAbc", "notes-2024.md"),
      copy: drive.copyFile("1DocAbc", { name: "Plan (copy)" }),
      trashed: drive.trashFile("1PdfAbc"),
      restored: drive.restoreFile("1PdfAbc"),
    };`);
    const routes = r.sent.map((s: any) => `${s.method} ${url(s.path).pathname.replace('/drive/v3/', '')}`);
    assert.deepEqual(routes, ['POST files', 'GET files/1TxtAbc', 'PATCH files/1TxtAbc', 'PATCH files/1TxtAbc', 'POST files/1DocAbc/copy', 'PATCH files/1PdfAbc', 'PATCH files/1PdfAbc']);
    assert.deepEqual(r.sent[0].json, { name: 'Reports', mimeType: 'application/vnd.google-apps.folder', parents: ['root'] });
    const move = url(r.sent[2].path).searchParams;
    assert.deepEqual([move.get('addParents'), move.get('removeParents')], ['1FolderAbc', 'root0']);
    assert.deepEqual(r.sent[3].json, { name: 'notes-2024.md' });
    assert.deepEqual(r.sent[4].json, { name: 'Plan (copy)' });
    assert.deepEqual([r.sent[5].json, r.sent[6].json], [{ trashed: true }, { trashed: false }]);
    assert.deepEqual([r.value.folder.folder, r.value.moved.parents, r.value.renamed.name, r.value.copy.id, r.value.trashed.trashed, r.value.restored.trashed], [true, ['1FolderAbc'], 'notes-2024.md', '1CopyAbc', true, false]);
  });

  test('shareFile grants by principal (narrowed by a rule), listPermissions follows pages', async () => {
    const r = await call(`return { shared: drive.shareFile("1DocAbc", "Bob@Example.com", "commenter", { notify: false }), permissions: drive.listPermissions("1DocAbc") };`);
    assert.deepEqual(r.sent[0].json, { type: 'user', role: 'commenter', emailAddress: 'bob@example.com' });
    assert.equal(url(r.sent[0].path).searchParams.get('sendNotificationEmail'), 'false');
    assert.equal(url(r.sent[2].path).searchParams.get('pageToken'), 'perm-2');
    assert.deepEqual(r.value.shared, { id: '9876543210', type: 'user', role: 'commenter', emailAddress: 'bob@example.com', domain: null, displayName: 'Bob', expirationTime: null });
    assert.deepEqual(r.value.permissions.map((p: any) => [p.id, p.type, p.role]), [['0123456789', 'user', 'owner'], ['anyoneWithLink', 'anyone', 'reader']]);
    for (const principal of ['anyone', 'domain:example.com', 'eve@evil.example']) {
      const denied = await call(`return drive.shareFile("1DocAbc", "${principal}", "reader");`);
      assert.deepEqual([denied.error.name, denied.error.capability], ['PermissionDeniedError', 'svc/google-drive.shareFile'], principal);
      assert.equal(denied.sent.length, 0);
    }
  });

  test('a provided capability the Blueprint does not grant is denied before any request', async () => {
    const r = await call(`return drive.removePermission("1DocAbc", "anyoneWithLink");`);
    assert.deepEqual([r.error.name, r.error.capability], ['PermissionDeniedError', 'svc/google-drive.removePermission']);
    assert.equal(r.sent.length, 0);
  });

  test('without GOOGLE_ACCESS_TOKEN: missing_token and nothing is sent', async () => {
    const r = await call(`return drive.searchFiles("x");`, false);
    assert.deepEqual([r.error.name, r.error.code, r.error.status], ['DriveError', 'missing_token', 0]);
    assert.equal(r.sent.length, 0);
  });

  test("errors: Google's error answers map to DriveError codes with the reason and retry metadata", async () => {
    const google = (code: number, status: string, reason: string) => ({ error: { code, message: `${reason} message`, errors: [{ message: `${reason} message`, domain: 'usageLimits', reason }], status } });
    const cases: Array<[any, string, number, string | null, number | null]> = [
      [{ status: 401, json: google(401, 'UNAUTHENTICATED', 'authError') }, 'unauthorized', 401, 'authError', null],
      [{ status: 403, json: google(403, 'PERMISSION_DENIED', 'insufficientFilePermissions') }, 'forbidden', 403, 'insufficientFilePermissions', null],
      [{ status: 403, json: google(403, 'PERMISSION_DENIED', 'userRateLimitExceeded') }, 'rate_limited', 403, 'userRateLimitExceeded', null],
      [{ status: 404, json: google(404, 'NOT_FOUND', 'notFound') }, 'not_found', 404, 'notFound', null],
      [{ status: 429, headers: { 'retry-after': '7' }, json: google(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded') }, 'rate_limited', 429, 'rateLimitExceeded', 7],
      [{ status: 500, json: google(500, 'INTERNAL', 'backendError') }, 'http_error', 500, 'backendError', null],
      [{ status: 200, body: 'not json' }, 'invalid_response', 200, null, null],
    ];
    try {
      for (const [reply, code, status, reason, retry] of cases) {
        c.api.handle(() => reply);
        const r = await call(`return drive.getFile("1DocAbc");`);
        assert.deepEqual([r.error.name, r.error.code, r.error.status, r.error.reason, r.error.retryAfterSeconds], ['DriveError', code, status, reason, retry], JSON.stringify(reply));
        assert.ok(!JSON.stringify(r.error).includes(TOKEN));
      }
    } finally {
      c.api.handle(driveHandler);
    }
  });
});
