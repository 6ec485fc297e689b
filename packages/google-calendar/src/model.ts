// The normalised results of @svc/google-calendar and the functions that build them from
// Calendar's JSON.
import { CalendarError, type Json } from "./client";
import type { Interval } from "./free";

export type { Interval } from "./free";

/** A calendar of the user's calendar list. */
export interface Calendar {
  id: string;
  summary: string;
  description: string | null;
  timeZone: string | null;
  /** True for the user's primary calendar. */
  primary: boolean;
  /** `owner`, `writer`, `reader` or `freeBusyReader`. */
  accessRole: string;
  selected: boolean;
  backgroundColor: string | null;
}

/** A page of calendars. */
export interface CalendarPage {
  calendars: Calendar[];
  nextPageToken: string | null;
}

/** A person on an event. */
export interface Person {
  email: string;
  displayName: string | null;
  /** True when this is the token's user. */
  self: boolean;
}

/** A guest and their answer. */
export interface Attendee extends Person {
  /** `needsAction`, `accepted`, `declined` or `tentative`. */
  responseStatus: string;
  optional: boolean;
  organizer: boolean;
  comment: string | null;
}

/** An event, normalised. */
export interface CalendarEvent {
  id: string;
  calendarId: string;
  /** `confirmed`, `tentative` or `cancelled`. */
  status: string;
  summary: string;
  description: string | null;
  location: string | null;
  /** RFC 3339 date-time, or the date "2024-05-01" for all-day events. */
  start: string;
  /** Exclusive end, as `start`. */
  end: string;
  allDay: boolean;
  timeZone: string | null;
  htmlLink: string | null;
  organizer: Person | null;
  attendees: Attendee[];
  /** The user's own answer when invited, else null. */
  myResponseStatus: string | null;
  recurrence: string[];
  /** For an instance of a recurring event: the series id. */
  recurringEventId: string | null;
  /** Video call link (Google Meet or another conference), or null. */
  conferenceUrl: string | null;
  created: string | null;
  updated: string | null;
  iCalUID: string | null;
}

/** A page of events. */
export interface EventPage {
  events: CalendarEvent[];
  nextPageToken: string | null;
  /** The calendar's time zone. */
  timeZone: string | null;
}

/** One calendar's busy times. */
export interface BusyCalendar {
  busy: Interval[];
  /** Reasons Google could not answer for it (`notFound`, `internalError`, ...). */
  errors: string[];
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => v !== null && typeof v === "object" && !Array.isArray(v)) : [];
}

function obj(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}

export function toCalendar(c: Json): Calendar {
  const id = str(c.id);
  if (id === null) throw new CalendarError("invalid_response", "Calendar calendarList answered with an entry without `id`", 200);
  return { id, summary: str(c.summaryOverride) ?? str(c.summary) ?? id, description: str(c.description), timeZone: str(c.timeZone), primary: c.primary === true, accessRole: str(c.accessRole) ?? "reader", selected: c.selected === true, backgroundColor: str(c.backgroundColor) };
}

export function toCalendarPage(body: Json): CalendarPage {
  return { calendars: objects(body.items).map(toCalendar), nextPageToken: str(body.nextPageToken) };
}

function toPerson(p: Json): Person {
  return { email: (str(p.email) ?? "").toLowerCase(), displayName: str(p.displayName), self: p.self === true };
}

export function toEvent(e: Json, calendarId: string): CalendarEvent {
  const id = str(e.id);
  if (id === null) throw new CalendarError("invalid_response", "Calendar answered with an event without `id`", 200);
  const start = obj(e.start);
  const end = obj(e.end);
  const attendees: Attendee[] = objects(e.attendees).map((a) => ({ ...toPerson(a), responseStatus: str(a.responseStatus) ?? "needsAction", optional: a.optional === true, organizer: a.organizer === true, comment: str(a.comment) }));
  const me = attendees.find((a) => a.self);
  const entry = objects(obj(e.conferenceData).entryPoints).find((p) => p.entryPointType === "video");
  return {
    id,
    calendarId,
    status: str(e.status) ?? "confirmed",
    summary: str(e.summary) ?? "",
    description: str(e.description),
    location: str(e.location),
    start: str(start.dateTime) ?? str(start.date) ?? "",
    end: str(end.dateTime) ?? str(end.date) ?? "",
    allDay: str(start.date) !== null && str(start.dateTime) === null,
    timeZone: str(start.timeZone),
    htmlLink: str(e.htmlLink),
    organizer: e.organizer ? toPerson(obj(e.organizer)) : null,
    attendees,
    myResponseStatus: me ? me.responseStatus : null,
    recurrence: Array.isArray(e.recurrence) ? e.recurrence.filter((r): r is string => typeof r === "string") : [],
    recurringEventId: str(e.recurringEventId),
    conferenceUrl: str(e.hangoutLink) ?? (entry ? str(entry.uri) : null),
    created: str(e.created),
    updated: str(e.updated),
    iCalUID: str(e.iCalUID),
  };
}

export function toEventPage(body: Json, calendarId: string): EventPage {
  return { events: objects(body.items).map((e) => toEvent(e, calendarId)), nextPageToken: str(body.nextPageToken), timeZone: str(body.timeZone) };
}

/** freeBusy's `calendars` object as a plain record keyed by calendar id. */
export function toFreeBusy(body: Json, ids: string[]): Record<string, BusyCalendar> {
  const calendars = obj(body.calendars);
  if (body.calendars === undefined) throw new CalendarError("invalid_response", "Calendar freeBusy answered without `calendars`", 200);
  const out: Record<string, BusyCalendar> = {};
  for (const id of ids) {
    const c = obj(calendars[id]);
    out[id] = {
      busy: objects(c.busy).map((b) => ({ start: str(b.start) ?? "", end: str(b.end) ?? "" })).filter((b) => b.start !== "" && b.end !== ""),
      errors: objects(c.errors).map((x) => str(x.reason) ?? "unknown").concat(calendars[id] === undefined ? ["notFound"] : []),
    };
  }
  return out;
}
