// A Gmail API v1 stand-in for the @svc/gmail integration tests: documented response shapes
// (users.getProfile, threads.list/get/modify, messages.get/send/modify, attachments.get,
// drafts.*, labels.*) for one mailbox, ada@example.com.
import type { StandInReply, StandInRequest } from '../stand-in';

export const GMAIL_HOST = 'gmail.googleapis.com';
export const SELF = 'ada@example.com';
export const ATTACHMENT_TEXT = 'quarterly numbers\n';
const PREFIX = '/gmail/v1/users/me/';

const b64url = (text: string | Buffer) => Buffer.from(text).toString('base64url');

/** A multipart message: text and HTML alternatives plus one attachment, display-name addresses, an encoded-word subject. */
export const MESSAGE = {
  id: '18c2f0a1b2c3d4e5',
  threadId: '18c2f0a1b2c3d4e0',
  labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'],
  snippet: 'The numbers are attached',
  historyId: '987654',
  internalDate: '1700000000000',
  sizeEstimate: 4321,
  payload: {
    partId: '',
    mimeType: 'multipart/mixed',
    filename: '',
    headers: [
      { name: 'From', value: '"Hopper, Grace" <Grace@Navy.example>' },
      { name: 'To', value: 'Ada Lovelace <ada@example.com>, bob@example.org' },
      { name: 'Cc', value: 'carol@example.net (Carol)' },
      { name: 'Reply-To', value: 'grace.replies@navy.example' },
      { name: 'Subject', value: '=?UTF-8?B?' + Buffer.from('Zahlen für Q3').toString('base64') + '?=' },
      { name: 'Date', value: 'Tue, 14 Nov 2023 22:13:20 +0000' },
      { name: 'Message-ID', value: '<CAF1234@mail.navy.example>' },
      { name: 'References', value: '<CAF1000@mail.navy.example>' },
    ],
    body: { size: 0 },
    parts: [
      {
        partId: '0',
        mimeType: 'multipart/alternative',
        filename: '',
        headers: [{ name: 'Content-Type', value: 'multipart/alternative; boundary="b1"' }],
        body: { size: 0 },
        parts: [
          { partId: '0.0', mimeType: 'text/plain', filename: '', headers: [{ name: 'Content-Type', value: 'text/plain; charset="UTF-8"' }], body: { size: 24, data: b64url('The numbers are attached – G.') } },
          { partId: '0.1', mimeType: 'text/html', filename: '', headers: [{ name: 'Content-Type', value: 'text/html; charset="UTF-8"' }], body: { size: 40, data: b64url('<p>The numbers are attached</p>') } },
        ],
      },
      { partId: '1', mimeType: 'text/csv', filename: 'q3.csv', headers: [{ name: 'Content-Type', value: 'text/csv; name="q3.csv"' }], body: { attachmentId: 'ANGjdJ8attachment-1', size: ATTACHMENT_TEXT.length } },
    ],
  },
};

const THREAD = { id: MESSAGE.threadId, historyId: '987654', messages: [MESSAGE] };

/** The RFC 5322 text of a `raw` field (base64url). */
export function decodeRaw(raw: string): string {
  return Buffer.from(raw, 'base64url').toString('utf8');
}

/** The decoded bodies of the base64 parts of a MIME text (enough for the messages the Package builds). */
export function base64Parts(mime: string): string[] {
  const out: string[] = [];
  for (const m of mime.matchAll(/Content-Transfer-Encoding: base64\r\n\r\n([A-Za-z0-9+/=\r\n]+?)\r\n(?:--|$)/g)) out.push(Buffer.from(m[1].replace(/\r\n/g, ''), 'base64').toString('utf8'));
  return out;
}

export function gmailHandler(req: StandInRequest): StandInReply {
  const url = new URL(req.path, `https://${GMAIL_HOST}`);
  if (!url.pathname.startsWith(PREFIX)) return { status: 404, json: { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } } };
  const route = `${req.method} ${url.pathname.slice(PREFIX.length)}`;
  switch (route) {
    case 'GET profile':
      return { json: { emailAddress: SELF, messagesTotal: 1200, threadsTotal: 800, historyId: '987654' } };
    case 'GET threads':
      return { json: { threads: [{ id: THREAD.id, snippet: MESSAGE.snippet, historyId: '987654' }], nextPageToken: '09876543210', resultSizeEstimate: 2 } };
    case `GET threads/${THREAD.id}`:
      return { json: THREAD };
    case `POST threads/${THREAD.id}/modify`:
      return { json: { id: THREAD.id, historyId: '987655', messages: [{ id: MESSAGE.id, threadId: THREAD.id, labelIds: ['INBOX', 'STARRED'] }] } };
    case `GET messages/${MESSAGE.id}`:
      return { json: MESSAGE };
    case `POST messages/${MESSAGE.id}/modify`:
      return { json: { id: MESSAGE.id, threadId: THREAD.id, labelIds: ['INBOX', 'Label_7'] } };
    case `GET messages/${MESSAGE.id}/attachments/ANGjdJ8attachment-1`:
      return { json: { attachmentId: 'ANGjdJ8attachment-1', size: ATTACHMENT_TEXT.length, data: b64url(ATTACHMENT_TEXT) } };
    case 'POST messages/send':
      return { json: { id: '18c2f0a1b2c3ffff', threadId: req.json?.threadId ?? '18c2f0a1b2c3ffff', labelIds: ['SENT'] } };
    case 'POST drafts':
      return { json: { id: 'r-5123456789', message: { id: '18c2f0a1b2c3eeee', threadId: req.json?.message?.threadId ?? '18c2f0a1b2c3eeee', labelIds: ['DRAFT'] } } };
    case 'GET drafts':
      return { json: { drafts: [{ id: 'r-5123456789', message: { id: '18c2f0a1b2c3eeee', threadId: '18c2f0a1b2c3eeee' } }], resultSizeEstimate: 1 } };
    case 'GET drafts/r-5123456789':
      return { json: { id: 'r-5123456789', message: { ...MESSAGE, id: '18c2f0a1b2c3eeee', labelIds: ['DRAFT'] } } };
    case 'POST drafts/send':
      return { json: { id: '18c2f0a1b2c3eeee', threadId: '18c2f0a1b2c3eeee', labelIds: ['SENT'] } };
    case 'DELETE drafts/r-5123456789':
      return { status: 204, body: '' };
    case 'GET labels':
      return { json: { labels: [{ id: 'INBOX', name: 'INBOX', type: 'system', messageListVisibility: 'hide', labelListVisibility: 'labelShow' }, { id: 'Label_7', name: 'Receipts', type: 'user' }] } };
    case 'POST labels':
      return { json: { id: 'Label_8', name: req.json?.name, type: 'user', messageListVisibility: req.json?.messageListVisibility ?? 'show', labelListVisibility: req.json?.labelListVisibility ?? 'labelShow' } };
    default:
      return { status: 404, json: { error: { code: 404, message: 'Requested entity was not found.', errors: [{ message: 'Requested entity was not found.', domain: 'global', reason: 'notFound' }], status: 'NOT_FOUND' } } };
  }
}
