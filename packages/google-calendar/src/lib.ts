// @svc/google-calendar: Google Calendar API v3 for the user of the shared Google access
// token (GOOGLE_ACCESS_TOKEN, never refreshed by the Package).
import { check } from "svc:security";
import { apiDelete, apiGet, apiPatch, apiPost, CalendarError, type Json } from "./client";
import { calendarIdArg, calendarIdsArg, eventBodyArg, eventIdArg, flagArg, hoursArg, instantArg, intArg, oneOfArg, optionalInstantArg, optionsArg, pageTokenArg, SEND_UPDATES, textArg, timeZoneArg, windowArg, type EventInput, type WorkingHours } from "./args";
import { freeSlots, type Interval } from "./free";
import { toCalendarPage, toEvent, toEventPage, toFreeBusy, type BusyCalendar, type CalendarEvent, type CalendarPage, type EventPage } from "./model";

export { CalendarError };
export type { EventInput, WorkingHours } from "./args";
export type { Attendee, BusyCalendar, Calendar, CalendarEvent, CalendarPage, EventPage, Interval, Person } from "./model";

/** Options of `listCalendars`. */
export interface ListCalendarsOptions {
  /** Calendars per page, 1 to 250. */
  maxResults?: number | null;
  pageToken?: string | null;
  /** Include calendars hidden from the list (default false). */
  showHidden?: boolean | null;
}

/** Options of `listEvents`. */
export interface ListEventsOptions {
  /** Only events ending after this instant (RFC 3339 with offset). */
  timeMin?: string | null;
  /** Only events starting before this instant. */
  timeMax?: string | null;
  /** Free-text search in summary, description, location, attendees. */
  query?: string | null;
  /** Events per page, 1 to 2500 (Google's default 250). */
  maxResults?: number | null;
  pageToken?: string | null;
  /** Expand recurring events into instances, ordered by start (default true). */
  singleEvents?: boolean | null;
  /** Include cancelled events (default false). */
  showDeleted?: boolean | null;
  /** Time zone of the answer's date-times. */
  timeZone?: string | null;
}

/** Who is told about a change. */
export interface UpdateOptions {
  /** `all`, `externalOnly` or `none` (Google's default). */
  sendUpdates?: "all" | "externalOnly" | "none" | null;
}

/** Options of `respondToEvent`. */
export interface RespondOptions extends UpdateOptions {
  /** A note to the organizer. */
  comment?: string | null;
}

/** Options of `queryFreeBusy`. */
export interface FreeBusyOptions {
  /** Time zone of the answer (default UTC). */
  timeZone?: string | null;
}

/** Options of `findFreeTime`. */
export interface FindFreeTimeOptions {
  /** Only slots within these working hours. */
  workingHours?: WorkingHours | null;
  /** IANA time zone of the working hours (default UTC). */
  timeZone?: string | null;
}

/** Options of `agenda`. */
export interface AgendaOptions {
  /** Start of the agenda (RFC 3339 with offset); default now. */
  start?: string | null;
  /** Days to cover, 1 to 31 (default 1). */
  days?: number | null;
  /** Time zone of the answer's date-times. */
  timeZone?: string | null;
}

function eventPath(calendarId: string, eventId?: string): string {
  return `calendars/${encodeURIComponent(calendarId)}/events` + (eventId ? `/${encodeURIComponent(eventId)}` : "");
}

/**
 * List the calendars in the user's calendar list (own, shared and subscribed).
 * @param options `maxResults`, `pageToken`, `showHidden`.
 * @returns A page of calendars; `primary` marks the user's own.
 * @capability svc/google-calendar.listCalendars {}
 */
export function listCalendars(options?: ListCalendarsOptions | null): CalendarPage {
  const o = optionsArg(options);
  const maxResults = intArg(o.maxResults, "options.maxResults", 1, 250);
  const pageToken = pageTokenArg(o.pageToken);
  const showHidden = flagArg(o.showHidden, "options.showHidden");
  check("svc/google-calendar.listCalendars", {});
  return toCalendarPage(apiGet("calendarList", "users/me/calendarList", { maxResults, pageToken, showHidden }));
}

/**
 * List a calendar's events in a time window, recurring events expanded and ordered by start.
 * @param calendarId Calendar id; default `primary`.
 * @param options `timeMin`, `timeMax`, `query`, `maxResults`, `pageToken`, `singleEvents`, `showDeleted`, `timeZone`.
 * @returns A page of events.
 * @capability svc/google-calendar.listEvents { calendarId }
 */
export function listEvents(calendarId?: string | null, options?: ListEventsOptions | null): EventPage {
  const calendar = calendarIdArg(calendarId);
  const o = optionsArg(options);
  const timeMin = optionalInstantArg(o.timeMin, "options.timeMin");
  const timeMax = optionalInstantArg(o.timeMax, "options.timeMax");
  const q = textArg(o.query, "options.query");
  const maxResults = intArg(o.maxResults, "options.maxResults", 1, 2500);
  const pageToken = pageTokenArg(o.pageToken);
  const singleEvents = flagArg(o.singleEvents, "options.singleEvents") ?? true;
  const showDeleted = flagArg(o.showDeleted, "options.showDeleted");
  const timeZone = timeZoneArg(o.timeZone, "options.timeZone");
  check("svc/google-calendar.listEvents", { calendarId: calendar });
  const body = apiGet("events.list", eventPath(calendar), { timeMin, timeMax, q: q || undefined, maxResults, pageToken, singleEvents, orderBy: singleEvents ? "startTime" : undefined, showDeleted, timeZone });
  return toEventPage(body, calendar);
}

/**
 * Read one event.
 * @param calendarId Calendar id (`primary` for the user's own).
 * @param eventId Event id.
 * @returns The event; CalendarError `not_found` when there is none.
 * @capability svc/google-calendar.getEvent { calendarId }
 */
export function getEvent(calendarId: string, eventId: string): CalendarEvent {
  const calendar = calendarIdArg(calendarId);
  const id = eventIdArg(eventId);
  check("svc/google-calendar.getEvent", { calendarId: calendar });
  return toEvent(apiGet("events.get", eventPath(calendar, id)), calendar);
}

/**
 * Create an event, optionally inviting guests and adding a Google Meet link.
 * @param calendarId Calendar id (`primary` for the user's own).
 * @param event `summary`, `start`, `end` (required), `description`, `location`, `timeZone`, `attendees`, `recurrence`, `conference`, `visibility`, `transparency`, `reminderMinutes`.
 * @param options `sendUpdates` to tell guests.
 * @returns The created event.
 * @capability svc/google-calendar.createEvent { calendarId }
 */
export function createEvent(calendarId: string, event: EventInput, options?: UpdateOptions | null): CalendarEvent {
  const calendar = calendarIdArg(calendarId);
  const { body, conference } = eventBodyArg(event, "event", true);
  const sendUpdates = oneOfArg(optionsArg(options).sendUpdates, "options.sendUpdates", SEND_UPDATES);
  check("svc/google-calendar.createEvent", { calendarId: calendar });
  // A fresh request id per create: Google ties the Meet conference to it.
  const request = conference ? { conferenceData: { createRequest: { requestId: crypto.randomUUID(), conferenceSolutionKey: { type: "hangoutsMeet" } } } } : {};
  return toEvent(apiPost("events.insert", eventPath(calendar), { ...body, ...request }, { sendUpdates, conferenceDataVersion: conference ? 1 : undefined }), calendar);
}

/**
 * Change some fields of an event (only the fields given change; `attendees` replaces the guest list).
 * @param calendarId Calendar id.
 * @param eventId Event id.
 * @param changes The fields to change, as in `createEvent`.
 * @param options `sendUpdates` to tell guests.
 * @returns The updated event.
 * @capability svc/google-calendar.updateEvent { calendarId }
 */
export function updateEvent(calendarId: string, eventId: string, changes: EventInput, options?: UpdateOptions | null): CalendarEvent {
  const calendar = calendarIdArg(calendarId);
  const id = eventIdArg(eventId);
  const { body } = eventBodyArg(changes, "changes", false);
  const sendUpdates = oneOfArg(optionsArg(options).sendUpdates, "options.sendUpdates", SEND_UPDATES);
  check("svc/google-calendar.updateEvent", { calendarId: calendar });
  return toEvent(apiPatch("events.patch", eventPath(calendar, id), body, { sendUpdates }), calendar);
}

/**
 * Delete an event (cancel it for its guests when you are the organizer).
 * @param calendarId Calendar id.
 * @param eventId Event id.
 * @param options `sendUpdates` to tell guests.
 * @capability svc/google-calendar.deleteEvent { calendarId }
 */
export function deleteEvent(calendarId: string, eventId: string, options?: UpdateOptions | null): void {
  const calendar = calendarIdArg(calendarId);
  const id = eventIdArg(eventId);
  const sendUpdates = oneOfArg(optionsArg(options).sendUpdates, "options.sendUpdates", SEND_UPDATES);
  check("svc/google-calendar.deleteEvent", { calendarId: calendar });
  apiDelete("events.delete", eventPath(calendar, id), { sendUpdates });
}

/**
 * Answer an invitation as the user: accepted, declined or tentative (the event is read first to find the user among its guests).
 * @param calendarId Calendar id holding the invitation (usually `primary`).
 * @param eventId Event id.
 * @param response `accepted`, `declined` or `tentative`.
 * @param options `comment` for the organizer, `sendUpdates`.
 * @returns The updated event.
 * @capability svc/google-calendar.respondToEvent { calendarId, response }
 */
export function respondToEvent(calendarId: string, eventId: string, response: "accepted" | "declined" | "tentative", options?: RespondOptions | null): CalendarEvent {
  const calendar = calendarIdArg(calendarId);
  const id = eventIdArg(eventId);
  const answer = oneOfArg(response, "response", ["accepted", "declined", "tentative"] as const);
  if (answer === undefined) throw new CalendarError("invalid_argument", 'response must be one of "accepted", "declined", "tentative"');
  const o = optionsArg(options);
  const comment = textArg(o.comment, "options.comment");
  const sendUpdates = oneOfArg(o.sendUpdates, "options.sendUpdates", SEND_UPDATES);
  check("svc/google-calendar.respondToEvent", { calendarId: calendar, response: answer });
  const current = apiGet("events.get", eventPath(calendar, id));
  const attendees = Array.isArray(current.attendees) ? (current.attendees as Json[]) : [];
  if (!attendees.some((a) => a && a.self === true)) throw new CalendarError("invalid_argument", `the user is not a guest of event ${id}; only invitations can be answered`);
  const updated = attendees.map((a) => (a && a.self === true ? { ...a, responseStatus: answer, ...(comment !== undefined ? { comment } : {}) } : a));
  return toEvent(apiPatch("events.patch", eventPath(calendar, id), { attendees: updated }, { sendUpdates }), calendar);
}

/**
 * Busy times of up to 50 calendars (own, colleagues', rooms) in a window of at most 62 days.
 * @param calendarIds Calendar ids or addresses.
 * @param timeMin Window start (RFC 3339 with offset).
 * @param timeMax Window end.
 * @param options `timeZone` of the answer.
 * @returns Busy intervals per calendar id (a plain object), with Google's per-calendar errors.
 * @capability svc/google-calendar.queryFreeBusy { calendarIds: string[] }
 */
export function queryFreeBusy(calendarIds: string[], timeMin: string, timeMax: string, options?: FreeBusyOptions | null): Record<string, BusyCalendar> {
  const ids = calendarIdsArg(calendarIds);
  const window = windowArg(timeMin, timeMax);
  const timeZone = timeZoneArg(optionsArg(options).timeZone, "options.timeZone");
  check("svc/google-calendar.queryFreeBusy", { calendarIds: ids });
  return toFreeBusy(apiPost("freeBusy", "freeBusy", { ...window, ...(timeZone ? { timeZone } : {}), items: ids.map((id) => ({ id })) }), ids);
}

/**
 * Find the gaps when all the given calendars are free for at least `durationMinutes`, optionally within working hours.
 * @param calendarIds Calendar ids or addresses whose busy times count.
 * @param timeMin Window start (RFC 3339 with offset).
 * @param timeMax Window end.
 * @param durationMinutes Shortest useful slot, 5 to 1440 minutes.
 * @param options `workingHours` ({start, end, weekdaysOnly}) and their `timeZone`.
 * @returns The free intervals (UTC), earliest first.
 * @capability svc/google-calendar.findFreeTime { calendarIds: string[] }
 */
export function findFreeTime(calendarIds: string[], timeMin: string, timeMax: string, durationMinutes: number, options?: FindFreeTimeOptions | null): Interval[] {
  const ids = calendarIdsArg(calendarIds);
  const window = windowArg(timeMin, timeMax);
  const minutes = intArg(durationMinutes, "durationMinutes", 5, 1440);
  if (minutes === undefined) throw new CalendarError("invalid_argument", "durationMinutes must be an integer from 5 to 1440");
  const o = optionsArg(options);
  const hours = hoursArg(o.workingHours, "options.workingHours");
  const timeZone = timeZoneArg(o.timeZone, "options.timeZone") ?? "UTC";
  check("svc/google-calendar.findFreeTime", { calendarIds: ids });
  const busy = toFreeBusy(apiPost("freeBusy", "freeBusy", { ...window, items: ids.map((id) => ({ id })) }), ids);
  const unknown = ids.filter((id) => busy[id].errors.length > 0);
  if (unknown.length > 0) throw new CalendarError("not_found", `Calendar freeBusy could not read ${unknown.join(", ")} (${unknown.map((id) => busy[id].errors.join("/")).join(", ")}); free time would be wrong`, 200);
  return freeSlots(ids.flatMap((id) => busy[id].busy), window.timeMin, window.timeMax, minutes * 60000, hours, timeZone);
}

/**
 * The user's agenda: events of the primary calendar from `start` (default now) for `days` days, in start order.
 * @param options `start`, `days` (1 to 31, default 1), `timeZone`.
 * @returns The events, recurring ones expanded.
 * @capability svc/google-calendar.agenda {}
 */
export function agenda(options?: AgendaOptions | null): CalendarEvent[] {
  const o = optionsArg(options);
  const start = o.start == null ? new Date().toISOString() : instantArg(o.start, "options.start");
  const days = intArg(o.days, "options.days", 1, 31) ?? 1;
  const timeZone = timeZoneArg(o.timeZone, "options.timeZone");
  check("svc/google-calendar.agenda", {});
  const timeMax = new Date(Date.parse(start) + days * 86400000).toISOString();
  const events: CalendarEvent[] = [];
  let pageToken: string | undefined;
  // At most 4 pages of 250: an agenda is for reading, not for export.
  for (let page = 0; page < 4; page++) {
    const result: EventPage = toEventPage(apiGet("events.list", eventPath("primary"), { timeMin: start, timeMax, singleEvents: true, orderBy: "startTime", maxResults: 250, pageToken, timeZone }), "primary");
    events.push(...result.events.filter((e) => e.status !== "cancelled"));
    if (!result.nextPageToken) break;
    pageToken = result.nextPageToken;
  }
  return events;
}
