import { check } from "svc:security";
import secrets from "svc:secrets";
import { get, put } from "svc:http";
import type { Response } from "svc:http";
import { CURSOR, SentryError, invalid, nextCursor, parseJson } from "./client";
import { asList, asObject, normalizeEvent, normalizeIssue, normalizeOrganization, normalizeProject } from "./model";
import type { Event, Issue, Organization, Page, Project } from "./model";

export { SentryError } from "./client";
export type { Event, Issue, Organization, Page, Project } from "./model";

// Literal base: the build derives `host == "sentry.io"` for the GETs and PUTs.
const API = "https://sentry.io/api/0/";

/** Paging options of the list functions. */
export interface PageOptions {
  /** `nextCursor` of the previous page. */
  cursor?: string | null;
}

/** Filters of `listIssues` (plus paging). */
export interface ListIssuesOptions extends PageOptions {
  /** Numeric project ids to search (default: every project the token can see). */
  projects?: string[] | null;
  /** Sentry search syntax (default `is:unresolved`). */
  query?: string | null;
  /** Time window such as `24h` or `14d`. */
  statsPeriod?: string | null;
  /** Only events of this environment. */
  environment?: string | null;
  /** `date` (last seen, default), `new`, `freq` or `user`. */
  sort?: "date" | "new" | "freq" | "user" | null;
  /** Issues per page, 1–100 (default 25). */
  limit?: number | null;
}

/** Changes to an issue; absent fields stay as they are. */
export interface IssueChanges {
  status?: "resolved" | "resolvedInNextRelease" | "unresolved" | "ignored" | null;
  /** `user:<id>`, `team:<id>`, a user name or email; `""` unassigns. */
  assignedTo?: string | null;
  hasSeen?: boolean | null;
  isBookmarked?: boolean | null;
  isSubscribed?: boolean | null;
}

/** Options of `listIssueEvents`. */
export interface ListEventsOptions extends PageOptions {
  /** Include every event's full body (default false). */
  full?: boolean | null;
}

const SLUG = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const STATUSES = ["resolved", "resolvedInNextRelease", "unresolved", "ignored"];
const SORTS = ["date", "new", "freq", "user"];

function headers(): Record<string, string> {
  const token = secrets.get("SENTRY_AUTH_TOKEN");
  if (token == null) throw new SentryError("missing_token", "SENTRY_AUTH_TOKEN is not set: bind it in the Blueprint's secrets");
  return { authorization: "Bearer " + token };
}

function slug(value: unknown, name: string): string {
  if (typeof value !== "string" || !SLUG.test(value)) throw invalid(name, "a slug (letters, digits, '-', '_' or '.')");
  return value;
}

function issueId(value: unknown): string {
  if (typeof value !== "string" || !/^[A-Za-z0-9-]{1,100}$/.test(value)) throw invalid("issue", "an issue id such as \"4512345678\" or a short id such as \"WEB-3K\"");
  return value;
}

function record<T>(value: T | null | undefined, name: string): Partial<NonNullable<T>> {
  if (value == null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(name, "an object");
  return value as Partial<NonNullable<T>>;
}

function cursorParam(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value !== "string" || !CURSOR.test(value)) throw invalid("options.cursor", "a nextCursor from the previous page");
  return value;
}

/** `?a=b&c=d` from pairs (values encoded), or "". */
function query(pairs: Array<[string, string | null]>): string {
  const parts = pairs.filter((p): p is [string, string] => p[1] !== null).map(([k, v]) => k + "=" + encodeURIComponent(v));
  return parts.length > 0 ? "?" + parts.join("&") : "";
}

function listPage<T>(response: Response, each: (v: Record<string, unknown>, operation: string) => T, operation: string): Page<T> {
  const items = asList(parseJson(response, operation), operation).map((v) => each(v, operation));
  return { items, nextCursor: nextCursor(response) };
}

/** The issue (raw and normalised), after making sure it belongs to `project` (otherwise it does not exist for this grant). */
function issueInProject(organization: string, project: string, id: string, operation: string): { raw: Record<string, unknown>; issue: Issue } {
  const raw = asObject(parseJson(get(API + "organizations/" + organization + "/issues/" + id + "/", headers()), operation), operation);
  const issue = normalizeIssue(raw, operation);
  if (issue.project?.slug !== project) throw new SentryError("not_found", `sentry ${operation}: issue ${id} is not in project ${project}`, 404);
  return { raw, issue };
}

/**
 * The organizations the token can see.
 * @param options Paging (`cursor`).
 * @returns One page of organizations.
 * @capability sentry.io/organizations.list List organizations.
 */
export function listOrganizations(options?: PageOptions | null): Page<Organization> {
  const cursor = cursorParam(record(options, "options").cursor);
  check("sentry.io/organizations.list", {});
  return listPage(get(API + "organizations/" + query([["cursor", cursor]]), headers()), normalizeOrganization, "listOrganizations");
}

/**
 * An organization's projects.
 * @param organization The organization's slug.
 * @param options Paging (`cursor`).
 * @returns One page of projects.
 * @capability sentry.io/projects.list { organization } List an organization's projects.
 */
export function listProjects(organization: string, options?: PageOptions | null): Page<Project> {
  const org = slug(organization, "organization");
  const cursor = cursorParam(record(options, "options").cursor);
  check("sentry.io/projects.list", { organization: org });
  return listPage(get(API + "organizations/" + org + "/projects/" + query([["cursor", cursor]]), headers()), normalizeProject, "listProjects");
}

/**
 * Search an organization's issues (unresolved ones by default).
 * @param organization The organization's slug.
 * @param options Project ids, search query, time window, environment, sort, paging.
 * @returns One page of issues.
 * @capability sentry.io/issues.list { organization, projects: string[] } Search issues; `projects` are the numeric project ids searched (empty: all the token can see).
 */
export function listIssues(organization: string, options?: ListIssuesOptions | null): Page<Issue> {
  const org = slug(organization, "organization");
  const o = record(options, "options");
  let projects: string[] = [];
  if (o.projects != null) {
    if (!Array.isArray(o.projects) || o.projects.length > 100 || o.projects.some((p) => typeof p !== "string" || !/^\d{1,20}$/.test(p))) throw invalid("options.projects", "an array of numeric project ids as strings");
    projects = [...new Set(o.projects as string[])];
  }
  const q = o.query ?? "is:unresolved";
  if (typeof q !== "string" || q.length > 1000) throw invalid("options.query", "Sentry search text of at most 1000 characters");
  const statsPeriod = o.statsPeriod ?? null;
  if (statsPeriod !== null && (typeof statsPeriod !== "string" || !/^\d{1,4}[smhdw]$/.test(statsPeriod))) throw invalid("options.statsPeriod", "a period such as 24h or 14d");
  const environment = o.environment ?? null;
  if (environment !== null && (typeof environment !== "string" || environment === "" || environment.length > 200)) throw invalid("options.environment", "an environment name");
  const sort = o.sort ?? null;
  if (sort !== null && !SORTS.includes(sort)) throw invalid("options.sort", "one of " + SORTS.join(", "));
  const limit = o.limit ?? null;
  if (limit !== null && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 100)) throw invalid("options.limit", "an integer from 1 to 100");
  const cursor = cursorParam(o.cursor);
  check("sentry.io/issues.list", { organization: org, projects });
  const params: Array<[string, string | null]> = [
    ...projects.map((p): [string, string] => ["project", p]),
    ["query", q],
    ["statsPeriod", statsPeriod],
    ["environment", environment],
    ["sort", sort],
    ["limit", limit === null ? null : String(limit)],
    ["cursor", cursor],
  ];
  return listPage(get(API + "organizations/" + org + "/issues/" + query(params), headers()), normalizeIssue, "listIssues");
}

/**
 * One issue of a project.
 * @param organization The organization's slug.
 * @param project The project's slug; an issue of another project is `not_found`.
 * @param issue The issue's id (or short id such as `WEB-3K`).
 * @returns The issue.
 * @capability sentry.io/issues.get { organization, project, issue } Read an issue.
 */
export function getIssue(organization: string, project: string, issue: string): Issue {
  const org = slug(organization, "organization");
  const proj = slug(project, "project");
  const id = issueId(issue);
  check("sentry.io/issues.get", { organization: org, project: proj, issue: id });
  return issueInProject(org, proj, id, "getIssue").issue;
}

/**
 * Resolve, ignore, reopen, assign or bookmark an issue of a project. The issue is read first
 * to make sure it belongs to `project`.
 * @param organization The organization's slug.
 * @param project The project's slug.
 * @param issue The issue's id (or short id).
 * @param changes Fields to change.
 * @returns The updated issue.
 * @capability sentry.io/issues.update { organization, project, issue } Change an issue.
 */
export function updateIssue(organization: string, project: string, issue: string, changes: IssueChanges): Issue {
  const org = slug(organization, "organization");
  const proj = slug(project, "project");
  const id = issueId(issue);
  const c = record(changes, "changes");
  const body: Record<string, unknown> = {};
  if (c.status != null) {
    if (!STATUSES.includes(c.status)) throw invalid("changes.status", "one of " + STATUSES.join(", "));
    body.status = c.status;
  }
  if (c.assignedTo != null) {
    if (typeof c.assignedTo !== "string" || c.assignedTo.length > 200) throw invalid("changes.assignedTo", "user:<id>, team:<id>, a user name or email, or \"\"");
    body.assignedTo = c.assignedTo;
  }
  for (const flag of ["hasSeen", "isBookmarked", "isSubscribed"] as const) {
    const value = c[flag];
    if (value == null) continue;
    if (typeof value !== "boolean") throw invalid("changes." + flag, "true or false");
    body[flag] = value;
  }
  if (Object.keys(body).length === 0) throw invalid("changes", "at least one of status, assignedTo, hasSeen, isBookmarked, isSubscribed");
  check("sentry.io/issues.update", { organization: org, project: proj, issue: id });
  const current = issueInProject(org, proj, id, "updateIssue");
  const updated = asObject(parseJson(put(API + "organizations/" + org + "/issues/" + current.issue.id + "/", body, headers()), "updateIssue"), "updateIssue");
  // Sentry answers with the issue, or only the changed attributes: lay them over what was read.
  return normalizeIssue({ ...current.raw, ...updated }, "updateIssue");
}

/**
 * An issue's events, newest first.
 * @param organization The organization's slug.
 * @param project The project's slug; the issue is read first to make sure it belongs to it.
 * @param issue The issue's id (or short id).
 * @param options `full` bodies, paging (`cursor`).
 * @returns One page of events.
 * @capability sentry.io/issueEvents.list { organization, project, issue } List an issue's events.
 */
export function listIssueEvents(organization: string, project: string, issue: string, options?: ListEventsOptions | null): Page<Event> {
  const org = slug(organization, "organization");
  const proj = slug(project, "project");
  const id = issueId(issue);
  const o = record(options, "options");
  const full = o.full ?? false;
  if (typeof full !== "boolean") throw invalid("options.full", "true or false");
  const cursor = cursorParam(o.cursor);
  check("sentry.io/issueEvents.list", { organization: org, project: proj, issue: id });
  const current = issueInProject(org, proj, id, "listIssueEvents");
  return listPage(get(API + "organizations/" + org + "/issues/" + current.issue.id + "/events/" + query([["full", full ? "true" : null], ["cursor", cursor]]), headers()), normalizeEvent, "listIssueEvents");
}

/**
 * One event of an issue, with its entries (exception and stack trace, breadcrumbs, request).
 * @param organization The organization's slug.
 * @param project The project's slug; the issue is read first to make sure it belongs to it.
 * @param issue The issue's id (or short id).
 * @param eventId An event id, or `latest` (default), `oldest` or `recommended`.
 * @returns The event.
 * @capability sentry.io/issueEvents.get { organization, project, issue } Read an issue's event.
 */
export function getIssueEvent(organization: string, project: string, issue: string, eventId?: string | null): Event {
  const org = slug(organization, "organization");
  const proj = slug(project, "project");
  const id = issueId(issue);
  const event = eventId ?? "latest";
  if (typeof event !== "string" || !/^([0-9a-fA-F]{32}|latest|oldest|recommended)$/.test(event)) throw invalid("eventId", "a 32-hex-digit event id, latest, oldest or recommended");
  check("sentry.io/issueEvents.get", { organization: org, project: proj, issue: id });
  const current = issueInProject(org, proj, id, "getIssueEvent");
  return normalizeEvent(asObject(parseJson(get(API + "organizations/" + org + "/issues/" + current.issue.id + "/events/" + event + "/", headers()), "getIssueEvent"), "getIssueEvent"), "getIssueEvent");
}
