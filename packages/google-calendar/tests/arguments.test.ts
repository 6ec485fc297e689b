import { label, expectLocalFailure } from "svc:test";
import { listEvents, createEvent, updateEvent, respondToEvent, queryFreeBusy, findFreeTime, agenda, getEvent, CalendarError } from "@svc/google-calendar";

/** The code of the CalendarError `fn` throws before any request. */
const code = (fn: () => unknown): string => expectLocalFailure(fn, "CalendarError");

export function main() {
  label("times need an offset");
  assert(code(() => listEvents("primary", { timeMin: "2024-05-01T09:00:00" })) === "invalid_argument");
  label("createEvent needs start and end, end after start, both of one kind");
  assert(code(() => createEvent("primary", { summary: "x" })) === "invalid_argument");
  assert(code(() => createEvent("primary", { start: "2024-05-01T10:00:00Z", end: "2024-05-01T09:00:00Z" })) === "invalid_argument");
  assert(code(() => createEvent("primary", { start: "2024-05-01", end: "2024-05-02T09:00:00Z" })) === "invalid_argument");
  label("attendees are email addresses");
  assert(code(() => createEvent("primary", { start: "2024-05-01", end: "2024-05-02", attendees: ["Bob"] })) === "invalid_argument");
  label("an update must change something");
  assert(code(() => updateEvent("primary", "abc123", {})) === "invalid_argument");
  label("responses are accepted, declined or tentative");
  assert(code(() => respondToEvent("primary", "abc123", "maybe" as "accepted")) === "invalid_argument");
  label("free/busy windows are ordered and at most 62 days");
  assert(code(() => queryFreeBusy(["primary"], "2024-05-02T00:00:00Z", "2024-05-01T00:00:00Z")) === "invalid_argument");
  assert(code(() => queryFreeBusy(["primary"], "2024-01-01T00:00:00Z", "2024-05-01T00:00:00Z")) === "invalid_argument");
  assert(code(() => queryFreeBusy([], "2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z")) === "invalid_argument");
  label("findFreeTime checks duration, working hours and time zone");
  assert(code(() => findFreeTime(["primary"], "2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z", 0)) === "invalid_argument");
  assert(code(() => findFreeTime(["primary"], "2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z", 30, { workingHours: { start: "17:00", end: "09:00" } })) === "invalid_argument");
  assert(code(() => findFreeTime(["primary"], "2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z", 30, { timeZone: "Mars/Olympus" })) === "invalid_argument");
  label("agenda covers 1 to 31 days");
  assert(code(() => agenda({ days: 40 })) === "invalid_argument");
  label("ids cannot be path segments");
  assert(code(() => getEvent("primary", "..")) === "invalid_argument");
  assert(code(() => getEvent("a/b", "abc")) === "invalid_argument");
  label("without GOOGLE_ACCESS_TOKEN: missing_token");
  assert(code(() => listEvents()) === "missing_token");
}
