// A Notion API stand-in (api.notion.com, version 2025-09-03) for the @svc/notion test:
// objects shaped as Notion documents them, list answers with next_cursor / has_more, and
// Notion's error object for unknown ids.
import type { StandInReply, StandInRequest } from '../stand-in';

export const NOTION_HOSTS = ['api.notion.com'];

export const PAGE = '1f2e3d4c-5b6a-4798-8776-655443322110';
export const OTHER_PAGE = '2a2a2a2a-2b2b-4c2c-8d2d-2e2e2e2e2e2e';
export const BLOCK = '3b3b3b3b-3c3c-4d3d-8e3e-3f3f3f3f3f3f';
export const NESTED_BLOCK = '4c4c4c4c-4d4d-4e4e-8f4f-404040404040';
export const FOREIGN_BLOCK = '5d5d5d5d-5e5e-4f5f-8050-515151515151';
export const DATABASE = '6e6e6e6e-6f6f-4060-8161-626262626262';
export const DATA_SOURCE = '7f7f7f7f-7070-4171-8272-737373737373';
export const VIEW = '80808080-8181-4282-8383-848484848484';
export const QUERY = '91919191-9292-4393-8494-959595959595';
export const USER = 'a2a2a2a2-a3a3-44a4-85a5-a6a6a6a6a6a6';
export const UPLOAD = 'b3b3b3b3-b4b4-45b5-86b6-b7b7b7b7b7b7';
export const MISSING = 'c4c4c4c4-c5c5-46c6-87c7-c8c8c8c8c8c8';

const rich = (text: string) => [{ type: 'text', text: { content: text, link: null }, annotations: { bold: false }, plain_text: text, href: null }];

export function pageObject(id: string, title: string, parent: Record<string, unknown> = { type: 'workspace', workspace: true }, extra: Record<string, unknown> = {}) {
  return {
    object: 'page',
    id,
    created_time: '2026-01-02T03:04:00.000Z',
    last_edited_time: '2026-01-03T03:04:00.000Z',
    in_trash: false,
    icon: { type: 'emoji', emoji: '📝' },
    cover: null,
    parent,
    url: `https://www.notion.so/${title.replace(/\s+/g, '-')}-${id.replace(/-/g, '')}`,
    properties: {
      title: { id: 'title', type: 'title', title: rich(title) },
      ...extra,
    },
  };
}

const block = (id: string, parent: Record<string, unknown>, text: string) => ({
  object: 'block',
  id,
  parent,
  type: 'paragraph',
  has_children: false,
  in_trash: false,
  paragraph: { rich_text: rich(text), color: 'default' },
});

const error = (status: number, code: string, message: string): StandInReply => ({ status, json: { object: 'error', status, code, message, request_id: 'req-123' } });

const dataSource = {
  object: 'data_source',
  id: DATA_SOURCE,
  title: rich('Tasks'),
  parent: { type: 'database_id', database_id: DATABASE },
  database_parent: { type: 'page_id', page_id: PAGE },
  url: `https://www.notion.so/${DATA_SOURCE.replace(/-/g, '')}`,
  in_trash: false,
  properties: {
    Name: { id: 'title', name: 'Name', type: 'title', title: {} },
    Status: { id: 'St%3A', name: 'Status', type: 'select', select: { options: [{ id: 'o1', name: 'Open', color: 'red' }, { id: 'o2', name: 'Done', color: 'green' }] } },
  },
};

const view = { object: 'view', id: VIEW, parent: { type: 'database_id', database_id: DATABASE }, data_source_id: DATA_SOURCE, name: 'Open tasks', type: 'table', filter: null, sorts: [] };

const upload = (status: string) => ({ object: 'file_upload', id: UPLOAD, created_time: '2026-01-02T03:04:00.000Z', last_edited_time: '2026-01-02T03:04:00.000Z', expiry_time: '2026-01-02T04:04:00.000Z', in_trash: false, status, filename: 'report.pdf', content_type: 'application/pdf', content_length: status === 'uploaded' ? 14 : null });

/** Answers like Notion for the endpoints the Package calls. */
export function notionHandler(request: StandInRequest): StandInReply {
  const url = new URL(request.path, 'https://api.notion.com');
  const path = url.pathname.replace(/^\/v1\//, '');
  const m = request.method;
  const body = request.json ?? {};
  const list = (results: unknown[], next: string | null = null, extra: Record<string, unknown> = {}): StandInReply => ({ status: 200, json: { object: 'list', results, next_cursor: next, has_more: next !== null, type: 'page_or_data_source', ...extra } });
  if (path.includes(MISSING)) return error(404, 'object_not_found', `Could not find object with ID: ${MISSING}.`);

  if (m === 'POST' && path === 'search') return list([pageObject(PAGE, 'Quarterly planning'), dataSource], 'cursor-2');
  if (m === 'GET' && path === `pages/${PAGE}`) return { status: 200, json: pageObject(PAGE, 'Quarterly planning', { type: 'workspace', workspace: true }, { Owner: { id: 'p1', type: 'people', people: [{ object: 'user', id: USER }] }, Due: { id: 'd1', type: 'date', date: { start: '2026-02-01', end: null } } }) };
  if (m === 'GET' && path === `pages/${PAGE}/markdown`) return { status: 200, json: { object: 'page_markdown', id: PAGE, markdown: '# Quarterly planning\n\n- ship', truncated: false, unknown_block_ids: [] } };
  if (m === 'PATCH' && path === `pages/${PAGE}/markdown`) return { status: 200, json: { object: 'page_markdown', id: PAGE, markdown: '# Quarterly planning\n\n- ship\n\n## More', truncated: false, unknown_block_ids: [] } };
  if (m === 'POST' && path === 'pages') {
    const titleProp = Object.values(body.properties ?? {}).find((p: any) => Array.isArray(p?.title)) as any;
    const title = titleProp ? titleProp.title.map((t: any) => t.text.content).join('') : 'Untitled';
    if (title === 'bad') return error(400, 'validation_error', 'body failed validation: title.');
    return { status: 200, json: pageObject(`d0d0d0d0-0000-4000-8000-00000000000${title.length % 10}`, title, body.parent) };
  }
  const pagePatch = /^pages\/([0-9a-f-]{36})$/.exec(path);
  if (m === 'PATCH' && pagePatch) return { status: 200, json: { ...pageObject(pagePatch[1], 'Quarterly planning'), in_trash: body.in_trash === true } };
  const move = /^pages\/([0-9a-f-]{36})\/move$/.exec(path);
  if (m === 'POST' && move) return { status: 200, json: pageObject(move[1], 'Moved', body.parent) };

  if (m === 'GET' && path === `blocks/${BLOCK}`) return { status: 200, json: block(BLOCK, { type: 'page_id', page_id: PAGE }, 'top') };
  if (m === 'GET' && path === `blocks/${NESTED_BLOCK}`) return { status: 200, json: block(NESTED_BLOCK, { type: 'block_id', block_id: BLOCK }, 'nested') };
  if (m === 'GET' && path === `blocks/${FOREIGN_BLOCK}`) return { status: 200, json: block(FOREIGN_BLOCK, { type: 'page_id', page_id: OTHER_PAGE }, 'elsewhere') };
  const children = /^blocks\/([0-9a-f-]{36})\/children$/.exec(path);
  if (m === 'GET' && children) return list([block(BLOCK, { type: 'page_id', page_id: children[1] }, 'top')], null, { type: 'block', block: {} });
  if (m === 'PATCH' && children) return list((body.children ?? []).map((c: any, i: number) => ({ object: 'block', id: `e0e0e0e0-0000-4000-8000-00000000000${i}`, parent: { type: 'page_id', page_id: children[1] }, has_children: false, in_trash: false, ...c })), null, { type: 'block', block: {} });
  const blockPatch = /^blocks\/([0-9a-f-]{36})$/.exec(path);
  if (m === 'PATCH' && blockPatch) return { status: 200, json: { ...block(blockPatch[1], { type: 'page_id', page_id: PAGE }, 'changed'), in_trash: body.in_trash === true } };

  if (m === 'GET' && path === 'comments') return list([{ object: 'comment', id: 'f1f1f1f1-0000-4000-8000-000000000001', discussion_id: 'f2f2f2f2-0000-4000-8000-000000000002', parent: { type: 'page_id', page_id: PAGE }, created_by: { object: 'user', id: USER }, created_time: '2026-01-02T03:04:00.000Z', rich_text: rich('Looks good') }]);
  if (m === 'POST' && path === 'comments') return { status: 200, json: { object: 'comment', id: 'f3f3f3f3-0000-4000-8000-000000000003', discussion_id: body.discussion_id ?? 'f4f4f4f4-0000-4000-8000-000000000004', parent: body.parent ?? { type: 'page_id', page_id: PAGE }, created_by: { object: 'user', id: USER }, created_time: '2026-01-02T03:04:00.000Z', rich_text: body.rich_text.map((r: any) => ({ ...r, plain_text: r.text.content })) } };

  if (m === 'GET' && path === 'users/me') return { status: 200, json: { object: 'user', id: USER, type: 'bot', name: 'svc connection', avatar_url: null, bot: { owner: { type: 'workspace', workspace: true } } } };
  if (m === 'GET' && path === 'users') return list([{ object: 'user', id: USER, type: 'person', name: 'Ada', avatar_url: null, person: { email: 'ada@example.com' } }], 'users-2');

  if (m === 'GET' && path === `databases/${DATABASE}`) return { status: 200, json: { object: 'database', id: DATABASE, title: rich('Tasks'), parent: { type: 'page_id', page_id: PAGE }, is_inline: false, in_trash: false, url: 'https://www.notion.so/tasks', data_sources: [{ id: DATA_SOURCE, name: 'Tasks' }] } };
  if (m === 'GET' && path === `data_sources/${DATA_SOURCE}`) return { status: 200, json: dataSource };
  if (m === 'POST' && path === `data_sources/${DATA_SOURCE}/query`) return list([pageObject(PAGE, 'Write report', { type: 'data_source_id', data_source_id: DATA_SOURCE }, { Status: { id: 'St%3A', type: 'select', select: { id: 'o1', name: 'Open', color: 'red' } } })], 'rows-2');
  if (m === 'GET' && path === 'views') return list([view], null, { type: 'view', view: {} });
  if (m === 'POST' && path === `views/${VIEW}/queries`) return { status: 200, json: { object: 'view_query', id: QUERY, view_id: VIEW, expires_at: '2026-01-02T04:00:00.000Z', total_count: 2, results: [{ object: 'page', id: PAGE }], next_cursor: 'view-2', has_more: true } };
  if (m === 'GET' && path === `views/${VIEW}/queries/${QUERY}`) return list([{ object: 'page', id: OTHER_PAGE }], null, { type: 'page', page: {} });

  if (m === 'POST' && path === 'databases') return { status: 200, json: { object: 'database', id: DATABASE, title: body.title, parent: body.parent, is_inline: body.is_inline === true, in_trash: false, url: 'https://www.notion.so/tasks', data_sources: [{ id: DATA_SOURCE, name: 'Tasks' }] } };
  if (m === 'PATCH' && path === `databases/${DATABASE}`) return { status: 200, json: { object: 'database', id: DATABASE, title: rich('Tasks'), parent: { type: 'page_id', page_id: PAGE }, is_inline: false, in_trash: body.in_trash === true, data_sources: [] } };
  if (m === 'PATCH' && path === `data_sources/${DATA_SOURCE}`) return { status: 200, json: { ...dataSource, title: body.title ?? dataSource.title } };
  if (m === 'GET' && path === `data_sources/${DATA_SOURCE}/templates`) return { status: 200, json: { templates: [{ id: PAGE, name: 'Bug report', is_default: true }], has_more: false, next_cursor: null } };
  if (m === 'POST' && path === 'views') return { status: 200, json: { ...view, name: body.name, type: body.type } };
  if (m === 'PATCH' && path === `views/${VIEW}`) return { status: 200, json: { ...view, ...(body.name ? { name: body.name } : {}) } };
  if (m === 'POST' && path === 'blocks/meeting_notes/query') return { status: 200, json: { object: 'list', results: [{ object: 'block', id: BLOCK, type: 'meeting_notes', meeting_notes: { title: rich('Standup'), status: 'notes_ready', children: { summary_block_id: NESTED_BLOCK, notes_block_id: FOREIGN_BLOCK } } }], next_cursor: null, has_more: false } };
  if (m === 'GET' && path === `file_uploads/${UPLOAD}`) return { status: 200, json: upload('uploaded') };
  if (m === 'GET' && path === 'file_uploads') return list([upload('uploaded')], null, { type: 'file_upload', file_upload: {} });
  if (m === 'GET' && path === `pages/${PAGE}/properties/title`) return list([{ object: 'property_item', id: 'title', type: 'title', title: rich('Quarterly ')[0] }, { object: 'property_item', id: 'title', type: 'title', title: rich('planning')[0] }], null, { type: 'property_item', property_item: { id: 'title', type: 'title', title: {} } });
  if (m === 'GET' && path === `users/${USER}`) return { status: 200, json: { object: 'user', id: USER, type: 'person', name: 'Ada', avatar_url: null, person: { email: 'ada@example.com' } } };
  if (m === 'POST' && path === 'file_uploads') return { status: 200, json: { ...upload('pending'), upload_url: `https://api.notion.com/v1/file_uploads/${UPLOAD}/send` } };
  if (m === 'POST' && path === `file_uploads/${UPLOAD}/send`) return { status: 200, json: upload('uploaded') };
  return error(400, 'invalid_request_url', `Invalid request URL: ${m} ${path}`);
}
