// Argument checks of @svc/google-calendar: each returns the normalised value or throws
// CalendarError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request. The checks every curated Package shares come from @svc/kit.

import { argumentChecks } from "@svc/kit";
import { CalendarError, type Json } from "./client";

const checks = argumentChecks(CalendarError);
const { invalid } = checks;
/** The checks every curated Package shares (@svc/kit). */
export const { optionsArg, intArg, pageTokenArg, flagArg } = checks;

/** A calendar id: `primary`, an address, or a group calendar id; trimmed. */
export function calendarIdArg(value: unknown, name = "calendarId"): string {
  if (value == null) return "primary";
  const id = typeof value === "string" ? value.trim() : "";
  if (id === "" || id === "." || id === ".." || id.length > 1024 || /[\s/?]/.test(id)) throw invalid(`${name} must be "primary", a calendar address such as "team@example.com", or an id from listCalendars`);
  return id;
}

/** 1 to 50 distinct calendar ids, sorted so the same set always checks the same way. */
export function calendarIdsArg(value: unknown, name = "calendarIds"): string[] {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) throw invalid(`${name} must be an array of 1 to 50 calendar ids (e.g. ["primary", "ada@example.com"])`);
  const ids = [...new Set(list.map((v, i) => calendarIdArg(v ?? "", `${name}[${i}]`)))].sort();
  if (ids.length > 50) throw invalid(`${name} may name at most 50 calendars (got ${ids.length})`);
  return ids;
}

/** An event id (Calendar ids are base32hex; imported and instance ids add `_` and `@`). */
export function eventIdArg(value: unknown, name = "eventId"): string {
  const id = typeof value === "string" ? value.trim() : "";
  if (!/^[A-Za-z0-9_@.-]{1,1024}$/.test(id) || id === "." || id === "..") throw invalid(`${name} must be an event id from listEvents or getEvent`);
  return id;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** An instant in RFC 3339 with an offset ("2024-05-01T09:00:00+02:00" or "...Z"); returned as UTC ISO. */
export function instantArg(value: unknown, name: string): string {
  if (typeof value !== "string" || !DATE_TIME.test(value.trim()) || Number.isNaN(Date.parse(value.trim()))) throw invalid(`${name} must be an RFC 3339 date-time with an offset, such as "2024-05-01T09:00:00Z" or "2024-05-01T09:00:00+02:00"`);
  return new Date(Date.parse(value.trim())).toISOString();
}

/** An optional instant. */
export function optionalInstantArg(value: unknown, name: string): string | undefined {
  return value == null ? undefined : instantArg(value, name);
}

/** An IANA time zone name ("Europe/Berlin"), checked with Intl. */
export function timeZoneArg(value: unknown, name: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw invalid(`${name} must be an IANA time zone such as "Europe/Berlin"`);
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value.trim() });
  } catch {
    throw invalid(`${name} must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(value)})`);
  }
  return value.trim();
}

/** An optional string. */
export function textArg(value: unknown, name: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string") throw invalid(`${name} must be a string`);
  return value;
}

/** One of `allowed`, or undefined. */
export function oneOfArg<T extends string>(value: unknown, name: string, allowed: readonly T[]): T | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) throw invalid(`${name} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  return value as T;
}

/** Who hears about a change: `all`, `externalOnly` or `none` (Google's default). */
export const SEND_UPDATES = ["all", "externalOnly", "none"] as const;

/** An event's start or end: a date ("2024-05-01", all-day) or an RFC 3339 date-time. */
function whenArg(value: unknown, name: string, timeZone: string | undefined): Json {
  if (typeof value === "string" && DATE.test(value.trim())) return { date: value.trim() };
  if (typeof value === "string" && DATE_TIME.test(value.trim()) && !Number.isNaN(Date.parse(value.trim()))) return { dateTime: value.trim(), ...(timeZone ? { timeZone } : {}) };
  throw invalid(`${name} must be a date "2024-05-01" (all-day) or an RFC 3339 date-time with an offset such as "2024-05-01T09:00:00+02:00"`);
}

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** The fields of an event to create or change. */
export interface EventInput {
  /** Title. */
  summary?: string | null;
  description?: string | null;
  location?: string | null;
  /** "2024-05-01" (all-day) or "2024-05-01T09:00:00+02:00". */
  start?: string | null;
  /** Exclusive end: the day after for all-day events. */
  end?: string | null;
  /** IANA time zone for the start and end date-times (and recurrence expansion). */
  timeZone?: string | null;
  /** Guest addresses ("ada@example.com"); replaces the whole guest list on update. */
  attendees?: string[] | null;
  /** RRULE/EXRULE/RDATE/EXDATE lines, e.g. ["RRULE:FREQ=WEEKLY;COUNT=4"]. */
  recurrence?: string[] | null;
  /** Add a Google Meet link (create only). */
  conference?: boolean | null;
  /** `default`, `public` or `private`. */
  visibility?: "default" | "public" | "private" | null;
  /** `opaque` (busy, default) or `transparent` (free). */
  transparency?: "opaque" | "transparent" | null;
  /** Popup reminders in minutes before the start; [] for none; omitted uses the calendar's default. */
  reminderMinutes?: number[] | null;
}

/** Builds Google's event resource from an EventInput; `create` requires start and end. */
export function eventBodyArg(value: unknown, name: string, create: boolean): { body: Json; conference: boolean } {
  const o = optionsArg(value, name);
  const body: Json = {};
  const timeZone = timeZoneArg(o.timeZone, `${name}.timeZone`);
  for (const key of ["summary", "description", "location"] as const) {
    const text = textArg(o[key], `${name}.${key}`);
    if (text !== undefined) body[key] = text;
  }
  if (o.start != null) body.start = whenArg(o.start, `${name}.start`, timeZone);
  if (o.end != null) body.end = whenArg(o.end, `${name}.end`, timeZone);
  if (create && (body.start === undefined || body.end === undefined)) throw invalid(`${name} needs start and end`);
  if (body.start && body.end && ("date" in (body.start as Json)) !== ("date" in (body.end as Json))) throw invalid(`${name}.start and ${name}.end must both be dates (all-day) or both date-times`);
  if (body.start && body.end) {
    const s = body.start as Json;
    const e = body.end as Json;
    const startMs = Date.parse(String(s.dateTime ?? s.date));
    const endMs = Date.parse(String(e.dateTime ?? e.date));
    if (!(endMs > startMs)) throw invalid(`${name}.end must be after ${name}.start`);
  }
  if (o.attendees != null) {
    if (!Array.isArray(o.attendees)) throw invalid(`${name}.attendees must be an array of email addresses`);
    body.attendees = [...new Set(o.attendees.map((a, i) => {
      const email = typeof a === "string" ? a.trim().toLowerCase() : "";
      if (!EMAIL.test(email)) throw invalid(`${name}.attendees[${i}] must be an email address such as "ada@example.com"`);
      return email;
    }))].map((email) => ({ email }));
  }
  if (o.recurrence != null) {
    if (!Array.isArray(o.recurrence) || o.recurrence.some((r) => typeof r !== "string" || !/^(RRULE|EXRULE|RDATE|EXDATE)[:;]/.test(r))) throw invalid(`${name}.recurrence must be an array of RFC 5545 lines such as "RRULE:FREQ=WEEKLY;COUNT=4"`);
    body.recurrence = o.recurrence;
  }
  const visibility = oneOfArg(o.visibility, `${name}.visibility`, ["default", "public", "private"]);
  if (visibility) body.visibility = visibility;
  const transparency = oneOfArg(o.transparency, `${name}.transparency`, ["opaque", "transparent"]);
  if (transparency) body.transparency = transparency;
  if (o.reminderMinutes != null) {
    if (!Array.isArray(o.reminderMinutes) || o.reminderMinutes.length > 5 || o.reminderMinutes.some((m) => typeof m !== "number" || !Number.isInteger(m) || m < 0 || m > 40320)) throw invalid(`${name}.reminderMinutes must be up to 5 whole minute counts from 0 to 40320`);
    body.reminders = { useDefault: false, overrides: o.reminderMinutes.map((minutes) => ({ method: "popup", minutes })) };
  }
  const conference = flagArg(o.conference, `${name}.conference`) ?? false;
  if (!create && Object.keys(body).length === 0) throw invalid(`${name} must change at least one field (summary, description, location, start, end, attendees, recurrence, visibility, transparency, reminderMinutes)`);
  return { body, conference };
}

/** A free/busy window: `timeMin` before `timeMax`, at most 62 days apart. */
export function windowArg(timeMin: unknown, timeMax: unknown): { timeMin: string; timeMax: string } {
  const min = instantArg(timeMin, "timeMin");
  const max = instantArg(timeMax, "timeMax");
  const span = Date.parse(max) - Date.parse(min);
  if (span <= 0) throw invalid("timeMax must be after timeMin");
  if (span > 62 * 86400000) throw invalid("timeMin and timeMax may be at most 62 days apart");
  return { timeMin: min, timeMax: max };
}

/** Working hours "HH:MM" to "HH:MM" in a time zone. */
export interface WorkingHours {
  /** Start of the working day, "09:00". */
  start: string;
  /** End of the working day, "17:30". */
  end: string;
  /** Leave Saturdays and Sundays out (default true). */
  weekdaysOnly?: boolean | null;
}

/** Validated working hours in minutes after midnight. */
export interface Hours {
  startMinute: number;
  endMinute: number;
  weekdaysOnly: boolean;
}

export function hoursArg(value: unknown, name: string): Hours | null {
  if (value == null) return null;
  const o = optionsArg(value, name);
  const minute = (v: unknown, field: string): number => {
    const m = typeof v === "string" ? /^(\d{2}):(\d{2})$/.exec(v.trim()) : null;
    if (!m || Number(m[1]) > 24 || Number(m[2]) > 59 || (Number(m[1]) === 24 && Number(m[2]) !== 0)) throw invalid(`${name}.${field} must be a time "HH:MM" such as "09:00"`);
    return Number(m[1]) * 60 + Number(m[2]);
  };
  const startMinute = minute(o.start, "start");
  const endMinute = minute(o.end, "end");
  if (endMinute <= startMinute) throw invalid(`${name}.end must be after ${name}.start`);
  return { startMinute, endMinute, weekdaysOnly: flagArg(o.weekdaysOnly, `${name}.weekdaysOnly`) ?? true };
}
