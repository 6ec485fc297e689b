// A Google Drive API v3 stand-in for the @svc/google-drive integration tests: documented
// shapes of files.list/get/export/create/update/copy, permissions.* and the resumable
// upload protocol (session Location, 308 Resume Incomplete with Range, final file).
import type { StandInReply, StandInRequest } from '../stand-in';

export const GOOGLE_HOST = 'www.googleapis.com';
export const DOC_TEXT = 'Plan\n\nShip the thing.\n';
export const NOTES_TEXT = '# Notes\nhello\n';
export const PDF_BYTES = '%PDF-1.4 stand-in\n';
export const UPLOAD_ID = 'ADPycduTestSession_1';
/** Bytes of the first chunk the stand-in pretends to have stored (so the Package resumes from Range). */
export const FIRST_STORED = 128 * 1024;

const owner = { emailAddress: 'Ada@Example.com', displayName: 'Ada Lovelace' };
export const FILES: Record<string, any> = {
  '1DocAbc': { id: '1DocAbc', name: 'Plan', mimeType: 'application/vnd.google-apps.document', parents: ['1FolderAbc'], createdTime: '2024-04-01T10:00:00.000Z', modifiedTime: '2024-04-02T10:00:00.000Z', webViewLink: 'https://docs.google.com/document/d/1DocAbc/edit', trashed: false, starred: true, owners: [owner] },
  '1TxtAbc': { id: '1TxtAbc', name: 'notes.md', mimeType: 'text/markdown', parents: ['root0'], size: String(NOTES_TEXT.length), modifiedTime: '2024-04-03T10:00:00.000Z', trashed: false, owners: [owner] },
  '1PdfAbc': { id: '1PdfAbc', name: 'contract.pdf', mimeType: 'application/pdf', parents: ['root0'], size: String(PDF_BYTES.length), trashed: false, owners: [owner] },
  '1FolderAbc': { id: '1FolderAbc', name: 'Projects', mimeType: 'application/vnd.google-apps.folder', parents: ['root0'], trashed: false, owners: [owner] },
};

/** The resumable upload as the stand-in saw it. */
export const upload = { metadata: null as any, chunks: [] as Array<{ range: string; length: number }> };

const notFound = { status: 404, json: { error: { code: 404, message: 'File not found: x.', errors: [{ message: 'File not found: x.', domain: 'global', reason: 'notFound', location: 'fileId', locationType: 'parameter' }] } } };

export function driveHandler(req: StandInRequest): StandInReply {
  const url = new URL(req.path, `https://${GOOGLE_HOST}`);
  const p = url.pathname;
  if (p === '/upload/drive/v3/files' && url.searchParams.get('uploadType') === 'resumable') {
    if (req.method === 'POST') {
      upload.metadata = { body: req.json, type: req.headers['x-upload-content-type'], length: req.headers['x-upload-content-length'] };
      upload.chunks = [];
      return { status: 200, headers: { location: `https://www.googleapis.com/upload/drive/v3/files?uploadType=resumable&upload_id=${UPLOAD_ID}` }, body: '' };
    }
    if (req.method === 'PUT' && url.searchParams.get('upload_id') === UPLOAD_ID) {
      const range = String(req.headers['content-range']);
      upload.chunks.push({ range, length: Buffer.byteLength(req.body) });
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (m && Number(m[2]) + 1 < Number(m[3])) {
        // Store only part of the first chunk: the client must resume from Range.
        const stored = upload.chunks.length === 1 ? FIRST_STORED - 1 : Number(m[2]);
        return { status: 308, headers: { range: `bytes=0-${stored}` }, body: '' };
      }
      const size = m ? Number(m[3]) : 0;
      return { status: 200, json: { kind: 'drive#file', id: '1UploadedAbc', name: upload.metadata.body.name, mimeType: upload.metadata.body.mimeType, parents: upload.metadata.body.parents ?? ['root0'], size: String(size), trashed: false, owners: [owner] } };
    }
  }
  const m = /^\/drive\/v3\/files(?:\/([^/]+))?(?:\/(export|copy|permissions))?(?:\/([^/]+))?$/.exec(p);
  if (!m) return notFound;
  const [, id, sub, pid] = m;
  const file = id ? FILES[id] : undefined;
  if (id && !file) return notFound;
  const route = `${req.method} ${sub ?? (id ? 'file' : 'files')}${pid ? '/id' : ''}`;
  switch (route) {
    case 'GET files':
      return { json: { kind: 'drive#fileList', incompleteSearch: false, nextPageToken: 'files-page-2', files: [FILES['1DocAbc'], FILES['1TxtAbc']] } };
    case 'POST files':
      return { json: { id: '1NewFolderAbc', ...req.json, trashed: false, owners: [owner] } };
    case 'GET file':
      if (url.searchParams.get('alt') === 'media') return id === '1TxtAbc' ? { body: NOTES_TEXT, headers: { 'content-type': 'text/markdown' } } : { body: PDF_BYTES, headers: { 'content-type': 'application/pdf' } };
      return { json: url.searchParams.get('fields') === 'parents' ? { parents: file.parents } : file };
    case 'GET export':
      if (url.searchParams.get('mimeType') === 'text/plain') return { body: DOC_TEXT, headers: { 'content-type': 'text/plain; charset=utf-8' } };
      return { body: PDF_BYTES, headers: { 'content-type': 'application/pdf' } };
    case 'PATCH file': {
      const parents = url.searchParams.get('addParents') ? [url.searchParams.get('addParents')] : file.parents;
      return { json: { ...file, ...req.json, parents } };
    }
    case 'POST copy':
      return { json: { ...file, id: '1CopyAbc', name: req.json?.name ?? `Copy of ${file.name}`, ...(req.json?.parents ? { parents: req.json.parents } : {}) } };
    case 'GET permissions':
      return url.searchParams.get('pageToken')
        ? { json: { permissions: [{ id: 'anyoneWithLink', type: 'anyone', role: 'reader', allowFileDiscovery: false }] } }
        : { json: { nextPageToken: 'perm-2', permissions: [{ id: '0123456789', type: 'user', role: 'owner', emailAddress: 'Ada@Example.com', displayName: 'Ada Lovelace' }] } };
    case 'POST permissions':
      return { json: { kind: 'drive#permission', id: '9876543210', ...req.json, displayName: 'Bob' } };
    case 'DELETE permissions/id':
      return { status: 204, body: '' };
    default:
      return notFound;
  }
}
