// Linear's objects as small JSON-serialisable shapes, with the GraphQL selections that fetch them.
import { LinearError, invalid } from "./client";

/** A person in the workspace. */
export interface User {
  id: string;
  name: string;
  displayName: string | null;
  email: string | null;
  active: boolean | null;
}

/** A team. */
export interface Team {
  id: string;
  /** Short key used in issue identifiers, e.g. `ENG`. */
  key: string;
  name: string;
  description: string | null;
}

/** A project. */
export interface Project {
  id: string;
  name: string;
  description: string | null;
  /** e.g. `planned`, `started`, `completed`. */
  state: string | null;
  url: string | null;
}

/** An issue. */
export interface Issue {
  id: string;
  /** Human identifier, e.g. `ENG-123`. */
  identifier: string;
  title: string;
  description: string | null;
  /** 0 none, 1 urgent, 2 high, 3 medium, 4 low. */
  priority: number | null;
  url: string | null;
  /** Workflow state: name and type (`triage`, `backlog`, `unstarted`, `started`, `completed`, `canceled`). */
  state: { id: string; name: string; type: string } | null;
  teamId: string | null;
  teamKey: string | null;
  assignee: { id: string; name: string } | null;
  projectId: string | null;
  /** Label names. */
  labels: string[];
  createdAt: string | null;
  updatedAt: string | null;
}

/** A comment on an issue. */
export interface Comment {
  id: string;
  body: string;
  url: string | null;
  user: { id: string; name: string } | null;
  createdAt: string | null;
}

/** An agent session (an agent's run on an issue or comment thread). */
export interface AgentSession {
  id: string;
  /** `pending`, `active`, `error`, `awaitingInput`, `complete` or `stale`. */
  status: string;
  issueId: string | null;
  commentId: string | null;
  url: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** What an agent reports in a session. */
export type AgentActivityContent =
  | { type: "thought" | "response" | "error" | "elicitation" | "prompt"; body: string }
  | { type: "action"; action: string; parameter: string; result?: string | null };

/** One activity of an agent session. */
export interface AgentActivity {
  id: string;
  createdAt: string | null;
  content: AgentActivityContent;
}

/** One page of a list; pass `nextCursor` as `after` for the next page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Paging options of the list functions. */
export interface PageOptions {
  /** Items per page, 1–250 (default 50). */
  first?: number | null;
  /** `nextCursor` of the previous page. */
  after?: string | null;
}

export const USER = "id name displayName email active";
export const TEAM = "id key name description";
export const PROJECT = "id name description state url";
export const ISSUE = "id identifier title description priority url createdAt updatedAt state { id name type } team { id key } assignee { id name } project { id } labels { nodes { name } }";
export const COMMENT = "id body url createdAt user { id name }";
export const SESSION = "id status url createdAt updatedAt issue { id } comment { id }";
export const ACTIVITY =
  "id createdAt content { __typename ... on AgentActivityThoughtContent { type body } ... on AgentActivityResponseContent { type body } ... on AgentActivityErrorContent { type body } ... on AgentActivityElicitationContent { type body } ... on AgentActivityPromptContent { type body } ... on AgentActivityActionContent { type action parameter result } }";
export const PAGE_INFO = "pageInfo { hasNextPage endCursor }";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function bad(operation: string, what: string): LinearError {
  return new LinearError("invalid_response", `linear ${operation}: ${what}`);
}

/** `data[field]` as an object, or invalid_response. */
export function field(data: Json, name: string, operation: string): Json {
  const value = obj(data[name]);
  if (value === null) throw bad(operation, `the answer has no ${name}`);
  return value;
}

/** A mutation payload's object, after checking `success`. */
export function payload(data: Json, mutation: string, member: string, operation: string): Json {
  const result = field(data, mutation, operation);
  if (result.success === false) throw new LinearError("graphql_error", `linear ${operation}: Linear reported no success`);
  const value = obj(result[member]);
  if (value === null) throw bad(operation, `the answer has no ${member}`);
  return value;
}

function id(v: Json, operation: string): string {
  const value = str(v.id);
  if (value === null) throw bad(operation, "an object has no id");
  return value;
}

const ref = (v: unknown): { id: string; name: string } | null => {
  const o = obj(v);
  return o && typeof o.id === "string" ? { id: o.id, name: str(o.name) ?? "" } : null;
};

/** A User object. */
export function normalizeUser(v: Json, operation = "user"): User {
  return { id: id(v, operation), name: str(v.name) ?? "", displayName: str(v.displayName), email: str(v.email), active: typeof v.active === "boolean" ? v.active : null };
}

/** A Team object. */
export function normalizeTeam(v: Json, operation = "team"): Team {
  return { id: id(v, operation), key: str(v.key) ?? "", name: str(v.name) ?? "", description: str(v.description) };
}

/** A Project object. */
export function normalizeProject(v: Json, operation = "project"): Project {
  return { id: id(v, operation), name: str(v.name) ?? "", description: str(v.description), state: str(v.state), url: str(v.url) };
}

/** An Issue object. */
export function normalizeIssue(v: Json, operation = "issue"): Issue {
  const state = obj(v.state);
  const team = obj(v.team);
  const labels = obj(v.labels);
  return {
    id: id(v, operation),
    identifier: str(v.identifier) ?? "",
    title: str(v.title) ?? "",
    description: str(v.description),
    priority: typeof v.priority === "number" ? v.priority : null,
    url: str(v.url),
    state: state && typeof state.id === "string" ? { id: state.id, name: str(state.name) ?? "", type: str(state.type) ?? "" } : null,
    teamId: team ? str(team.id) : null,
    teamKey: team ? str(team.key) : null,
    assignee: ref(v.assignee),
    projectId: obj(v.project) ? str(obj(v.project)!.id) : null,
    labels: Array.isArray(labels?.nodes) ? (labels!.nodes as unknown[]).map((l) => str(obj(l)?.name)).filter((n): n is string => n !== null) : [],
    createdAt: str(v.createdAt),
    updatedAt: str(v.updatedAt),
  };
}

/** A Comment object. */
export function normalizeComment(v: Json, operation = "comment"): Comment {
  return { id: id(v, operation), body: str(v.body) ?? "", url: str(v.url), user: ref(v.user), createdAt: str(v.createdAt) };
}

/** An AgentSession object. */
export function normalizeSession(v: Json, operation = "agentSession"): AgentSession {
  return {
    id: id(v, operation),
    status: str(v.status) ?? "",
    issueId: str(obj(v.issue)?.id),
    commentId: str(obj(v.comment)?.id),
    url: str(v.url),
    createdAt: str(v.createdAt),
    updatedAt: str(v.updatedAt),
  };
}

/** An AgentActivity object. */
export function normalizeActivity(v: Json, operation = "agentActivity"): AgentActivity {
  const c = obj(v.content) ?? {};
  const type = str(c.type) ?? "";
  const content: AgentActivityContent =
    type === "action" ? { type: "action", action: str(c.action) ?? "", parameter: str(c.parameter) ?? "", result: str(c.result) } : { type: (type || "thought") as "thought", body: str(c.body) ?? "" };
  return { id: id(v, operation), createdAt: str(v.createdAt), content };
}

/** A connection (`nodes` and `pageInfo`) as a Page. */
export function page<T>(connection: Json, each: (v: Json, operation: string) => T, operation: string): Page<T> {
  if (!Array.isArray(connection.nodes)) throw bad(operation, "the answer has no nodes");
  const info = obj(connection.pageInfo);
  const items = (connection.nodes as unknown[]).map((n) => {
    const o = obj(n);
    if (o === null) throw bad(operation, "a node is not an object");
    return each(o, operation);
  });
  return { items, nextCursor: info?.hasNextPage === true ? str(info.endCursor) : null };
}

/** `{first, after}` variables from paging options. */
export function pageVariables(options: PageOptions | null | undefined): { first: number; after: string | null } {
  if (options == null) return { first: 50, after: null };
  if (typeof options !== "object") throw invalid("options", "an object");
  const first = options.first ?? 50;
  if (typeof first !== "number" || !Number.isInteger(first) || first < 1 || first > 250) throw invalid("options.first", "an integer from 1 to 250");
  const after = options.after ?? null;
  if (after !== null && (typeof after !== "string" || after === "" || after.length > 500)) throw invalid("options.after", "a nextCursor from the previous page");
  return { first, after };
}

/** A non-empty id (UUID or identifier such as `ENG-123`). */
export function idArg(value: unknown, name: string): string {
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(value)) throw invalid(name, "an id (letters, digits, '-' or '_')");
  return value;
}
