// A Google Calendar API v3 stand-in for the @svc/google-calendar integration tests, with
// the documented shapes of calendarList.list, events.list/get/insert/patch/delete and
// freeBusy.query for one user, ada@example.com.
import type { StandInReply, StandInRequest } from '../stand-in';

export const GOOGLE_HOST = 'www.googleapis.com';
const PREFIX = '/calendar/v3/';

/** An invitation from grace to ada and bob, with a Meet link. */
export const INVITE = {
  kind: 'calendar#event',
  etag: '"3181161784712000"',
  id: 'evt1invite',
  status: 'confirmed',
  htmlLink: 'https://www.google.com/calendar/event?eid=ZXZ0MWludml0ZQ',
  created: '2024-04-20T10:00:00.000Z',
  updated: '2024-04-21T10:00:00.000Z',
  summary: 'Design review',
  description: 'Agenda in the doc',
  location: 'Room 1',
  creator: { email: 'grace@example.com' },
  organizer: { email: 'grace@example.com', displayName: 'Grace Hopper' },
  start: { dateTime: '2024-05-06T11:00:00+02:00', timeZone: 'Europe/Berlin' },
  end: { dateTime: '2024-05-06T12:00:00+02:00', timeZone: 'Europe/Berlin' },
  iCalUID: 'evt1invite@google.com',
  sequence: 0,
  attendees: [
    { email: 'grace@example.com', displayName: 'Grace Hopper', organizer: true, responseStatus: 'accepted' },
    { email: 'Ada@Example.com', displayName: 'Ada Lovelace', self: true, responseStatus: 'needsAction' },
    { email: 'bob@example.com', responseStatus: 'tentative', optional: true },
  ],
  hangoutLink: 'https://meet.google.com/abc-defg-hij',
  conferenceData: { entryPoints: [{ entryPointType: 'video', uri: 'https://meet.google.com/abc-defg-hij', label: 'meet.google.com/abc-defg-hij' }], conferenceSolution: { key: { type: 'hangoutsMeet' }, name: 'Google Meet' }, conferenceId: 'abc-defg-hij' },
  reminders: { useDefault: true },
  eventType: 'default',
};

const ALL_DAY = { kind: 'calendar#event', id: 'evt2holiday', status: 'confirmed', summary: 'Offsite', start: { date: '2024-05-07' }, end: { date: '2024-05-08' }, organizer: { email: 'ada@example.com', self: true } };

/** Busy times per calendar for freeBusy (UTC). */
export const BUSY: Record<string, Array<{ start: string; end: string }>> = {
  primary: [{ start: '2024-05-06T08:00:00Z', end: '2024-05-06T09:00:00Z' }],
  'bob@example.com': [{ start: '2024-05-06T08:30:00Z', end: '2024-05-06T10:00:00Z' }, { start: '2024-05-06T12:00:00Z', end: '2024-05-06T12:30:00Z' }],
};

export function calendarHandler(req: StandInRequest): StandInReply {
  const url = new URL(req.path, `https://${GOOGLE_HOST}`);
  if (!url.pathname.startsWith(PREFIX)) return { status: 404, json: { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } } };
  const route = `${req.method} ${decodeURIComponent(url.pathname.slice(PREFIX.length))}`;
  switch (route) {
    case 'GET users/me/calendarList':
      return {
        json: {
          kind: 'calendar#calendarList',
          items: [
            { kind: 'calendar#calendarListEntry', id: 'ada@example.com', summary: 'ada@example.com', timeZone: 'Europe/Berlin', accessRole: 'owner', primary: true, selected: true, backgroundColor: '#9fe1e7' },
            { kind: 'calendar#calendarListEntry', id: 'team@group.calendar.google.com', summary: 'Team', summaryOverride: 'Team (shared)', timeZone: 'Europe/Berlin', accessRole: 'writer' },
          ],
          nextPageToken: 'cl-page-2',
        },
      };
    case 'GET calendars/primary/events':
      return { json: { kind: 'calendar#events', summary: 'ada@example.com', timeZone: 'Europe/Berlin', items: [INVITE, ALL_DAY], nextPageToken: url.searchParams.get('pageToken') ? undefined : 'ev-page-2' } };
    case 'GET calendars/primary/events/evt1invite':
      return { json: INVITE };
    case 'POST calendars/primary/events': {
      const conference = req.json?.conferenceData ? { hangoutLink: 'https://meet.google.com/new-meet-lnk' } : {};
      return { json: { kind: 'calendar#event', id: 'evt3created', status: 'confirmed', htmlLink: 'https://www.google.com/calendar/event?eid=ZXZ0Mw', organizer: { email: 'ada@example.com', self: true }, ...req.json, ...conference } };
    }
    case 'PATCH calendars/primary/events/evt1invite':
      return { json: { ...INVITE, ...req.json } };
    case 'DELETE calendars/primary/events/evt1invite':
      return { status: 204, body: '' };
    case 'POST freeBusy': {
      const calendars: Record<string, unknown> = {};
      for (const { id } of req.json?.items ?? []) calendars[id] = BUSY[id] ? { busy: BUSY[id] } : { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
      return { json: { kind: 'calendar#freeBusy', timeMin: req.json?.timeMin, timeMax: req.json?.timeMax, calendars } };
    }
    default:
      return { status: 404, json: { error: { code: 404, message: 'Not Found', errors: [{ domain: 'global', reason: 'notFound', message: 'Not Found' }] } } };
  }
}
