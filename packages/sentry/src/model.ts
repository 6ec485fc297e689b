// Sentry's objects as small JSON-serialisable shapes.
import { SentryError } from "./client";

/** An organization. */
export interface Organization {
  id: string;
  slug: string;
  name: string;
  dateCreated: string | null;
  /** e.g. `active`. */
  status: string | null;
}

/** A project. */
export interface Project {
  id: string;
  slug: string;
  name: string;
  platform: string | null;
  dateCreated: string | null;
}

/** An issue (a group of similar events). */
export interface Issue {
  id: string;
  /** Human id, e.g. `WEB-3K`. */
  shortId: string | null;
  title: string;
  culprit: string | null;
  /** e.g. `error`, `warning`. */
  level: string | null;
  /** `resolved`, `unresolved` or `ignored`. */
  status: string | null;
  substatus: string | null;
  project: { id: string; slug: string; name: string } | null;
  /** Number of events. */
  count: number | null;
  userCount: number | null;
  firstSeen: string | null;
  lastSeen: string | null;
  permalink: string | null;
  assignedTo: { type: string | null; id: string | null; name: string | null } | null;
}

/** An event of an issue. `entries` (exception, breadcrumbs, request, …) are present for a single event. */
export interface Event {
  /** The event id (32 hex digits). */
  id: string;
  groupId: string | null;
  title: string | null;
  message: string | null;
  platform: string | null;
  dateCreated: string | null;
  /** Tag key to value. */
  tags: Record<string, string>;
  user: Record<string, unknown> | null;
  entries: unknown[];
}

/** One page of a list; pass `nextCursor` as `cursor` for the next page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : null);

function bad(operation: string, what: string): SentryError {
  return new SentryError("invalid_response", `sentry ${operation}: ${what}`);
}

/** The answer as an object, or invalid_response. */
export function asObject(value: unknown, operation: string): Json {
  const o = obj(value);
  if (o === null) throw bad(operation, "expected a JSON object");
  return o;
}

/** The answer as a list of objects, or invalid_response. */
export function asList(value: unknown, operation: string): Json[] {
  if (!Array.isArray(value)) throw bad(operation, "expected a JSON array");
  return value.map((v) => asObject(v, operation));
}

function id(v: Json, key: string, operation: string): string {
  const value = str(v[key]);
  if (value === null) throw bad(operation, `an object has no ${key}`);
  return value;
}

/** An organization object. */
export function normalizeOrganization(v: Json, operation: string): Organization {
  return { id: id(v, "id", operation), slug: str(v.slug) ?? "", name: str(v.name) ?? "", dateCreated: str(v.dateCreated), status: str(obj(v.status)?.id) };
}

/** A project object. */
export function normalizeProject(v: Json, operation: string): Project {
  return { id: id(v, "id", operation), slug: str(v.slug) ?? "", name: str(v.name) ?? "", platform: str(v.platform), dateCreated: str(v.dateCreated) };
}

/** An issue object. */
export function normalizeIssue(v: Json, operation: string): Issue {
  const project = obj(v.project);
  const assigned = obj(v.assignedTo);
  return {
    id: id(v, "id", operation),
    shortId: str(v.shortId),
    title: str(v.title) ?? "",
    culprit: str(v.culprit),
    level: str(v.level),
    status: str(v.status),
    substatus: str(v.substatus),
    project: project && str(project.id) !== null ? { id: str(project.id)!, slug: str(project.slug) ?? "", name: str(project.name) ?? "" } : null,
    count: num(v.count),
    userCount: num(v.userCount),
    firstSeen: str(v.firstSeen),
    lastSeen: str(v.lastSeen),
    permalink: str(v.permalink),
    assignedTo: assigned ? { type: str(assigned.type), id: str(assigned.id), name: str(assigned.name) } : null,
  };
}

/** An event object (list items have no entries). */
export function normalizeEvent(v: Json, operation: string): Event {
  const tags: Record<string, string> = {};
  if (Array.isArray(v.tags)) {
    for (const t of v.tags) {
      const tag = obj(t);
      const key = str(tag?.key);
      const value = str(tag?.value);
      if (key !== null && value !== null) tags[key] = value;
    }
  }
  return {
    id: str(v.eventID) ?? id(v, "id", operation),
    groupId: str(v.groupID),
    title: str(v.title),
    message: str(v.message),
    platform: str(v.platform),
    dateCreated: str(v.dateCreated),
    tags,
    user: obj(v.user) ? { ...obj(v.user)! } : null,
    entries: Array.isArray(v.entries) ? [...v.entries] : [],
  };
}
