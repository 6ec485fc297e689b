// @svc/google-calendar installed into a real server and called from programs against a
// Calendar API v3 stand-in on www.googleapis.com: requests with the shared Google token,
// normalised events, creating with guests and Meet, answering an invitation, free/busy and
// free time within working hours, error mapping, the missing token and denials that send
// nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { derivedRequires, startCurated, type Curated } from '../../support/curated';
import { GOOGLE_HOST, INVITE, calendarHandler } from '../../support/curated/google-calendar';

const TOKEN = 'ya29.test-calendar-token';
const secrets = { GOOGLE_ACCESS_TOKEN: TOKEN };
const GRANTED = ['agenda', 'findFreeTime', 'getEvent', 'listCalendars', 'listEvents', 'queryFreeBusy', 'respondToEvent', 'updateEvent'];

function program(body: string): string {
  return `import calendar from "@svc/google-calendar";
export function main() {
  try { return { value: (() => { ${body} })() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds, reason: e.reason, googleStatus: e.googleStatus, capability: e.capability, message: e.message } }; }
}`;
}

const url = (path: string) => new URL(path, `https://${GOOGLE_HOST}`);

describe('@svc/google-calendar', () => {
  let c: Curated;
  before(async () => {
    c = await startCurated({
      package: '@svc/google-calendar',
      hosts: [GOOGLE_HOST],
      secret: 'GOOGLE_ACCESS_TOKEN',
      handler: calendarHandler,
      // Events may be created on the primary calendar only; deleteEvent is not granted.
      main: [...GRANTED.map((name) => ({ capability: `svc/google-calendar.${name}` })), { capability: 'svc/google-calendar.createEvent', filter: 'calendarId == "primary"' }],
    });
  });
  after(async () => {
    await c?.close();
  });

  const call = (body: string, withSecret = true) => c.call(program(body), withSecret ? { secrets } : {});

  test('the build derives exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/google-calendar'), [
      { capability: 'http.delete', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.get', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.patch', filter: 'host == "www.googleapis.com"' },
      { capability: 'http.post', filter: 'host == "www.googleapis.com"' },
      { capability: 'secrets.get', filter: 'name == "GOOGLE_ACCESS_TOKEN"' },
    ]);
  });

  test('listCalendars and listEvents (default primary) send GETs with the Bearer token, expanded and ordered', async () => {
    const r = await call(`return { calendars: calendar.listCalendars(), events: calendar.listEvents(null, { timeMin: "2024-05-06T00:00:00+02:00", timeMax: "2024-05-08T00:00:00Z", query: "review", maxResults: 10 }) };`);
    assert.deepEqual(r.sent.map((s: any) => [s.method, url(s.path).pathname]), [['GET', '/calendar/v3/users/me/calendarList'], ['GET', '/calendar/v3/calendars/primary/events']]);
    assert.ok(r.sent.every((s: any) => s.headers.authorization === `Bearer ${TOKEN}`));
    const q = url(r.sent[1].path).searchParams;
    assert.equal(q.get('timeMin'), '2024-05-05T22:00:00.000Z');
    assert.equal(q.get('timeMax'), '2024-05-08T00:00:00.000Z');
    assert.equal(q.get('q'), 'review');
    assert.equal(q.get('singleEvents'), 'true');
    assert.equal(q.get('orderBy'), 'startTime');
    assert.equal(q.get('maxResults'), '10');
    assert.deepEqual(r.value.calendars.calendars.map((x: any) => [x.id, x.summary, x.primary, x.accessRole]), [['ada@example.com', 'ada@example.com', true, 'owner'], ['team@group.calendar.google.com', 'Team (shared)', false, 'writer']]);
    assert.equal(r.value.calendars.nextPageToken, 'cl-page-2');
    assert.equal(r.value.events.timeZone, 'Europe/Berlin');
    assert.equal(r.value.events.nextPageToken, 'ev-page-2');
    const [invite, offsite] = r.value.events.events;
    assert.equal(invite.start, '2024-05-06T11:00:00+02:00');
    assert.equal(invite.myResponseStatus, 'needsAction');
    assert.equal(invite.conferenceUrl, 'https://meet.google.com/abc-defg-hij');
    assert.deepEqual(invite.organizer, { email: 'grace@example.com', displayName: 'Grace Hopper', self: false });
    assert.deepEqual(invite.attendees[1], { email: 'ada@example.com', displayName: 'Ada Lovelace', self: true, responseStatus: 'needsAction', optional: false, organizer: false, comment: null });
    assert.deepEqual([offsite.start, offsite.end, offsite.allDay, offsite.myResponseStatus], ['2024-05-07', '2024-05-08', true, null]);
  });

  test('createEvent posts the event resource with guests, a Meet request and sendUpdates', async () => {
    const r = await call(`return calendar.createEvent("primary", { summary: "Planning", start: "2024-05-06T13:00:00+02:00", end: "2024-05-06T14:00:00+02:00", timeZone: "Europe/Berlin",
      attendees: ["Bob@Example.com"], conference: true, reminderMinutes: [10] }, { sendUpdates: "all" });`);
    assert.equal(r.sent.length, 1);
    assert.equal(r.sent[0].method, 'POST');
    const q = url(r.sent[0].path).searchParams;
    assert.equal(q.get('sendUpdates'), 'all');
    assert.equal(q.get('conferenceDataVersion'), '1');
    const body = r.sent[0].json;
    assert.deepEqual(body.start, { dateTime: '2024-05-06T13:00:00+02:00', timeZone: 'Europe/Berlin' });
    assert.deepEqual(body.attendees, [{ email: 'bob@example.com' }]);
    assert.deepEqual(body.reminders, { useDefault: false, overrides: [{ method: 'popup', minutes: 10 }] });
    assert.equal(body.conferenceData.createRequest.conferenceSolutionKey.type, 'hangoutsMeet');
    assert.match(body.conferenceData.createRequest.requestId, /^[0-9a-f-]{36}$/);
    assert.equal(r.value.id, 'evt3created');
    assert.equal(r.value.conferenceUrl, 'https://meet.google.com/new-meet-lnk');
    assert.equal(r.value.calendarId, 'primary');
  });

  test('a rule whose calendarId filter does not match denies createEvent before any request', async () => {
    const r = await call(`return calendar.createEvent("team@group.calendar.google.com", { summary: "x", start: "2024-05-06", end: "2024-05-07" });`);
    assert.equal(r.error.name, 'PermissionDeniedError');
    assert.equal(r.error.capability, 'svc/google-calendar.createEvent');
    assert.equal(r.sent.length, 0);
  });

  test('updateEvent patches only the given fields', async () => {
    const r = await call(`return calendar.updateEvent("primary", "evt1invite", { location: "Room 2" }, { sendUpdates: "none" });`);
    assert.equal(r.sent[0].method, 'PATCH');
    assert.equal(url(r.sent[0].path).pathname, '/calendar/v3/calendars/primary/events/evt1invite');
    assert.equal(url(r.sent[0].path).searchParams.get('sendUpdates'), 'none');
    assert.deepEqual(r.sent[0].json, { location: 'Room 2' });
    assert.equal(r.value.location, 'Room 2');
  });

  test("respondToEvent reads the event and patches only the user's own attendee entry", async () => {
    const r = await call(`return calendar.respondToEvent("primary", "evt1invite", "declined", { comment: "On leave" });`);
    assert.deepEqual(r.sent.map((s: any) => s.method), ['GET', 'PATCH']);
    const attendees = r.sent[1].json.attendees;
    assert.deepEqual(attendees[1], { ...INVITE.attendees[1], responseStatus: 'declined', comment: 'On leave' });
    assert.deepEqual([attendees[0], attendees[2]], [INVITE.attendees[0], INVITE.attendees[2]]);
    assert.equal(r.value.myResponseStatus, 'declined');
  });

  test('queryFreeBusy posts sorted calendar ids and returns busy times keyed by id', async () => {
    const r = await call(`return calendar.queryFreeBusy(["primary", "bob@example.com", "primary"], "2024-05-06T00:00:00Z", "2024-05-07T00:00:00Z", { timeZone: "Europe/Berlin" });`);
    assert.equal(url(r.sent[0].path).pathname, '/calendar/v3/freeBusy');
    assert.deepEqual(r.sent[0].json, { timeMin: '2024-05-06T00:00:00.000Z', timeMax: '2024-05-07T00:00:00.000Z', timeZone: 'Europe/Berlin', items: [{ id: 'bob@example.com' }, { id: 'primary' }] });
    assert.deepEqual(r.value.primary, { busy: [{ start: '2024-05-06T08:00:00Z', end: '2024-05-06T09:00:00Z' }], errors: [] });
    assert.equal(r.value['bob@example.com'].busy.length, 2);
  });

  test('findFreeTime returns the common gaps inside working hours of a time zone, long enough for the meeting', async () => {
    const r = await call(`return { hour: calendar.findFreeTime(["primary", "bob@example.com"], "2024-05-06T00:00:00Z", "2024-05-07T00:00:00Z", 60, { workingHours: { start: "09:00", end: "17:00" }, timeZone: "Europe/Berlin" }),
      long: calendar.findFreeTime(["primary", "bob@example.com"], "2024-05-06T00:00:00Z", "2024-05-07T00:00:00Z", 130, { workingHours: { start: "09:00", end: "17:00" }, timeZone: "Europe/Berlin" }) };`);
    // Working hours 09:00-17:00 in Berlin (UTC+2 in May) are 07:00-15:00 UTC; busy 08:00-10:00 and 12:00-12:30.
    assert.deepEqual(r.value.hour, [
      { start: '2024-05-06T07:00:00.000Z', end: '2024-05-06T08:00:00.000Z' },
      { start: '2024-05-06T10:00:00.000Z', end: '2024-05-06T12:00:00.000Z' },
      { start: '2024-05-06T12:30:00.000Z', end: '2024-05-06T15:00:00.000Z' },
    ]);
    assert.deepEqual(r.value.long, [{ start: '2024-05-06T12:30:00.000Z', end: '2024-05-06T15:00:00.000Z' }]);
    const unknown = await call(`return calendar.findFreeTime(["primary", "nobody@example.com"], "2024-05-06T00:00:00Z", "2024-05-07T00:00:00Z", 30);`);
    assert.equal(unknown.error.code, 'not_found', 'a calendar freeBusy cannot read is an error, not free time');
  });

  test('agenda reads the primary calendar for the given days, following pages', async () => {
    const r = await call(`return calendar.agenda({ start: "2024-05-06T00:00:00Z", days: 2 });`);
    assert.equal(r.sent.length, 2, 'the second page is fetched');
    const q = url(r.sent[0].path).searchParams;
    assert.equal(url(r.sent[0].path).pathname, '/calendar/v3/calendars/primary/events');
    assert.deepEqual([q.get('timeMin'), q.get('timeMax'), q.get('singleEvents'), q.get('orderBy')], ['2024-05-06T00:00:00.000Z', '2024-05-08T00:00:00.000Z', 'true', 'startTime']);
    assert.equal(url(r.sent[1].path).searchParams.get('pageToken'), 'ev-page-2');
    assert.deepEqual(r.value.map((e: any) => e.id), ['evt1invite', 'evt2holiday', 'evt1invite', 'evt2holiday']);
  });

  test('a provided capability the Blueprint does not grant is denied before any request', async () => {
    const r = await call(`return calendar.deleteEvent("primary", "evt1invite");`);
    assert.equal(r.error.name, 'PermissionDeniedError');
    assert.equal(r.error.capability, 'svc/google-calendar.deleteEvent');
    assert.equal(r.sent.length, 0);
  });

  test('without GOOGLE_ACCESS_TOKEN: missing_token and nothing is sent', async () => {
    const r = await call(`return calendar.listEvents();`, false);
    assert.deepEqual([r.error.name, r.error.code, r.error.status], ['CalendarError', 'missing_token', 0]);
    assert.equal(r.sent.length, 0);
  });

  test("errors: Google's error answers map to CalendarError codes with the reason and retry metadata", async () => {
    const google = (code: number, status: string, reason: string) => ({ error: { code, message: `${reason} message`, errors: [{ message: `${reason} message`, domain: 'global', reason }], status } });
    const cases: Array<[any, string, number, string | null, number | null]> = [
      [{ status: 401, json: google(401, 'UNAUTHENTICATED', 'authError') }, 'unauthorized', 401, 'authError', null],
      [{ status: 403, json: google(403, 'PERMISSION_DENIED', 'forbiddenForNonOrganizer') }, 'forbidden', 403, 'forbiddenForNonOrganizer', null],
      [{ status: 403, json: google(403, 'PERMISSION_DENIED', 'rateLimitExceeded') }, 'rate_limited', 403, 'rateLimitExceeded', null],
      [{ status: 404, json: google(404, 'NOT_FOUND', 'notFound') }, 'not_found', 404, 'notFound', null],
      [{ status: 410, json: google(410, 'GONE', 'deleted') }, 'not_found', 410, 'deleted', null],
      [{ status: 429, headers: { 'retry-after': '12' }, json: google(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded') }, 'rate_limited', 429, 'rateLimitExceeded', 12],
      [{ status: 503, json: google(503, 'UNAVAILABLE', 'backendError') }, 'http_error', 503, 'backendError', null],
      [{ status: 200, body: 'not json' }, 'invalid_response', 200, null, null],
    ];
    try {
      for (const [reply, code, status, reason, retry] of cases) {
        c.api.handle(() => reply);
        const r = await call(`return calendar.getEvent("primary", "evt1invite");`);
        assert.deepEqual([r.error.name, r.error.code, r.error.status, r.error.reason, r.error.retryAfterSeconds], ['CalendarError', code, status, reason, retry], JSON.stringify(reply));
        assert.ok(!JSON.stringify(r.error).includes(TOKEN));
      }
    } finally {
      c.api.handle(calendarHandler);
    }
  });
});
