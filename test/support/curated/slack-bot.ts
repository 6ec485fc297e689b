// A Slack Web API stand-in for the two Slack Package tests (slack-bot, slack-user): answers
// `https://slack.com/api/<method>` the way Slack documents it (HTTP 200 with `ok`, cursors in
// `response_metadata.next_cursor`) and serves one file on files.slack.com.
import type { StandInReply, StandInRequest } from '../stand-in';

export const SLACK_HOSTS = ['slack.com', 'files.slack.com'];

/** The file files.slack.com serves at FILE_PATH. */
export const FILE_BYTES = 'PDF-1.7 quarterly report';
export const FILE_PATH = '/files-pri/T0001-F0FILE1/download/report.pdf';

const message = (ts: string, text: string, extra: Record<string, unknown> = {}) => ({ type: 'message', user: 'U0ADA', text, ts, ...extra });

const user = (id: string, name: string, email: string) => ({
  id,
  team_id: 'T0001',
  name,
  deleted: false,
  real_name: name.toUpperCase(),
  tz: 'Europe/London',
  is_admin: false,
  is_bot: false,
  profile: { real_name: name.toUpperCase(), display_name: name, email, title: 'Engineer' },
});

/** Method name and its parameters (query for GET, JSON body for POST). */
export function slackCall(request: StandInRequest): { method: string; params: Record<string, any> } {
  const url = new URL(request.path, 'https://slack.com');
  const method = url.pathname.replace(/^\/api\//, '');
  const params: Record<string, any> = request.method === 'GET' ? Object.fromEntries(url.searchParams) : (request.json ?? {});
  return { method, params };
}

/** Answers like Slack for the methods the two Packages call. */
export function slackHandler(request: StandInRequest): StandInReply {
  if (request.host === 'files.slack.com') {
    return request.path === FILE_PATH ? { status: 200, headers: { 'content-type': 'application/pdf' }, body: FILE_BYTES } : { status: 404, body: 'no such file' };
  }
  const { method, params } = slackCall(request);
  const ok = (body: Record<string, unknown>): StandInReply => ({ status: 200, json: { ok: true, ...body } });
  switch (method) {
    case 'auth.test':
      return ok({ url: 'https://acme.slack.com/', team: 'Acme', user: 'deploybot', team_id: 'T0001', user_id: 'U0BOT', bot_id: 'B0001' });
    case 'chat.postMessage':
      return ok({ channel: params.channel, ts: '1712345678.000100', message: { type: 'message', user: 'U0BOT', bot_id: 'B0001', text: params.text, ts: '1712345678.000100', ...(params.thread_ts ? { thread_ts: params.thread_ts } : {}) } });
    case 'chat.update':
      return ok({ channel: params.channel, ts: params.ts, text: params.text });
    case 'chat.delete':
      return ok({ channel: params.channel, ts: params.ts });
    case 'reactions.add':
    case 'reactions.remove':
      return ok({});
    case 'conversations.open':
      return ok({ channel: { id: String(params.users).includes(',') ? 'G0MPIM1' : 'D0DM1' } });
    case 'conversations.info':
      if (params.channel === 'C0GONE') return { status: 200, json: { ok: false, error: 'channel_not_found' } };
      return ok({ channel: { id: params.channel, name: 'ops', is_channel: true, is_private: false, is_archived: false, is_member: true, created: 1600000000, topic: { value: 'Deploys' }, purpose: { value: 'Operations' }, num_members: 7 } });
    case 'conversations.list':
      return ok({
        channels: [
          { id: 'C0123ABCD', name: 'ops', is_channel: true, is_private: false, is_member: true, created: 1600000000, topic: { value: '' }, purpose: { value: '' } },
          { id: 'G0PRIV1', name: 'secret', is_group: true, is_private: true, is_member: true, created: 1600000001, topic: { value: '' }, purpose: { value: '' } },
        ],
        response_metadata: { next_cursor: 'dGVhbTpDMDI=' },
      });
    case 'conversations.members':
      return ok({ members: ['U0ADA', 'U0BOB'], response_metadata: { next_cursor: '' } });
    case 'conversations.history':
      if (params.latest === '1712345000.000300') return ok({ messages: [], has_more: false });
      return ok({
        messages: [
          message('1712345000.000200', 'second', { reactions: [{ name: 'eyes', count: 1, users: ['U0BOB'] }] }),
          message('1712345000.000100', 'first', { thread_ts: '1712345000.000100', reply_count: 1 }),
        ],
        has_more: true,
        response_metadata: { next_cursor: 'bmV4dF90czoxNzEyMzQ1MDAw' },
      });
    case 'conversations.replies':
      return ok({
        messages: [message('1712345000.000100', 'first', { thread_ts: '1712345000.000100', reply_count: 1 }), message('1712345000.000300', 'a reply', { thread_ts: '1712345000.000100', user: 'U0BOB' })],
        has_more: false,
        response_metadata: { next_cursor: '' },
      });
    case 'users.info':
      return ok({ user: user(params.user, 'ada', 'ada@example.com') });
    case 'users.list':
      return ok({ members: [user('U0ADA', 'ada', 'ada@example.com'), user('U0BOB', 'bob', 'bob@example.com')], response_metadata: { next_cursor: 'dXNlcjpVMEJPQg==' } });
    case 'users.lookupByEmail':
      return params.email === 'ada@example.com' ? ok({ user: user('U0ADA', 'ada', 'ada@example.com') }) : { status: 200, json: { ok: false, error: 'users_not_found' } };
    case 'files.info':
      return ok({
        file: { id: params.file, created: 1700000000, name: 'report.pdf', title: 'Q3 report', mimetype: 'application/pdf', filetype: 'pdf', size: FILE_BYTES.length, user: 'U0ADA', url_private: `https://files.slack.com${FILE_PATH.replace('/download', '')}`, url_private_download: `https://files.slack.com${FILE_PATH}`, permalink: 'https://acme.slack.com/files/U0ADA/F0FILE1/report.pdf', channels: ['C0123ABCD'], groups: [], ims: [] },
      });
    case 'search.messages':
      return ok({
        query: params.query,
        messages: {
          total: 3,
          matches: [{ iid: 'x1', channel: { id: 'C0123ABCD', name: 'ops' }, type: 'message', user: 'U0ADA', username: 'ada', ts: '1712345000.000100', text: 'deploy failed', permalink: 'https://acme.slack.com/archives/C0123ABCD/p1712345000000100' }],
          pagination: { total_count: 3, page: 1, per_page: 1, page_count: 3, first: 1, last: 1 },
        },
        response_metadata: { next_cursor: 'c2VhcmNoOjI=' },
      });
    default:
      return { status: 200, json: { ok: false, error: 'unknown_method' } };
  }
}
