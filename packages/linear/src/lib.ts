import { check } from "svc:security";
import { LinearError, graphql, invalid } from "./client";
import {
  ACTIVITY, COMMENT, ISSUE, PAGE_INFO, PROJECT, SESSION, TEAM, USER,
  field, idArg, normalizeActivity, normalizeComment, normalizeIssue, normalizeProject, normalizeSession, normalizeTeam, normalizeUser, page, pageVariables, payload,
} from "./model";
import type { AgentActivity, AgentActivityContent, AgentSession, Comment, Issue, Page, PageOptions, Project, Team, User } from "./model";

export { LinearError } from "./client";
export type { GraphQLErrorInfo } from "./client";
export type { AgentActivity, AgentActivityContent, AgentSession, Comment, Issue, Page, PageOptions, Project, Team, User } from "./model";

/** Filters of `listIssues` (plus paging). */
export interface ListIssuesOptions extends PageOptions {
  /** Only this team's issues. */
  teamId?: string | null;
  /** Only issues assigned to this user. */
  assigneeId?: string | null;
  /** Only issues in states of this type. */
  stateType?: "triage" | "backlog" | "unstarted" | "started" | "completed" | "canceled" | null;
}

/** A new issue. */
export interface NewIssue {
  teamId: string;
  title: string;
  /** Markdown. */
  description?: string | null;
  /** 0 none, 1 urgent, 2 high, 3 medium, 4 low. */
  priority?: number | null;
  assigneeId?: string | null;
  projectId?: string | null;
  stateId?: string | null;
  labelIds?: string[] | null;
}

/** Changes to an issue; absent fields stay as they are. */
export interface IssueChanges {
  title?: string | null;
  /** Markdown. */
  description?: string | null;
  priority?: number | null;
  assigneeId?: string | null;
  /** Move the issue into this project. */
  projectId?: string | null;
  stateId?: string | null;
  labelIds?: string[] | null;
}

/** Options of creating an agent session. */
export interface AgentSessionOptions {
  /** Link to the agent's own view of the session. */
  externalLink?: string | null;
}

/** Changes to an agent session. */
export interface AgentSessionChanges {
  /** Link to the agent's own view of the session. */
  externalLink?: string | null;
  /** The agent's plan (Linear shows it with the session). */
  plan?: Record<string, unknown> | null;
}

const STATE_TYPES = ["triage", "backlog", "unstarted", "started", "completed", "canceled"];
const ACTIVITY_TYPES = ["thought", "response", "error", "elicitation", "action"];

function text(value: unknown, name: string, max: number, allowEmpty = false): string {
  if (typeof value !== "string" || (!allowEmpty && value.trim() === "") || value.length > max) throw invalid(name, `a ${allowEmpty ? "" : "non-empty "}string of at most ${max} characters`);
  return value;
}

function record<T>(value: T | null | undefined, name: string): Partial<NonNullable<T>> {
  if (value == null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(name, "an object");
  return value as Partial<NonNullable<T>>;
}

function priorityOf(value: unknown, name: string): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 4) throw invalid(name, "an integer from 0 (none) to 4 (low)");
  return value;
}

function idList(value: unknown, name: string): string[] | undefined {
  if (value == null) return undefined;
  if (!Array.isArray(value) || value.length > 100) throw invalid(name, "an array of at most 100 ids");
  return value.map((v, i) => idArg(v, `${name}[${i}]`));
}

function compact(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

/** The team an issue belongs to (a read before acting on it). */
function teamOfIssue(issueId: string, operation: string): string {
  const issue = field(graphql(`query IssueTeam($id: String!) { issue(id: $id) { id team { id } } }`, { id: issueId }, operation), "issue", operation);
  const team = issue.team as { id?: unknown } | null;
  if (team == null || typeof team.id !== "string") throw new LinearError("invalid_response", `linear ${operation}: the issue has no team`);
  return team.id;
}

/**
 * The user the API key belongs to.
 * @returns The user.
 * @capability linear.app/getViewer Read the authenticated user.
 */
export function getViewer(): User {
  check("linear.app/getViewer", {});
  return normalizeUser(field(graphql(`query Viewer { viewer { ${USER} } }`, {}, "getViewer"), "viewer", "getViewer"), "getViewer");
}

/**
 * The workspace's teams.
 * @param options Paging (`first`, `after`).
 * @returns One page of teams.
 * @capability linear.app/listTeams List teams.
 */
export function listTeams(options?: PageOptions | null): Page<Team> {
  const vars = pageVariables(options);
  check("linear.app/listTeams", {});
  const data = graphql(`query Teams($first: Int!, $after: String) { teams(first: $first, after: $after) { nodes { ${TEAM} } ${PAGE_INFO} } }`, vars, "listTeams");
  return page(field(data, "teams", "listTeams"), normalizeTeam, "listTeams");
}

/**
 * One team.
 * @param teamId The team's id.
 * @returns The team.
 * @capability linear.app/getTeam { teamId } Read a team.
 */
export function getTeam(teamId: string): Team {
  const id = idArg(teamId, "teamId");
  check("linear.app/getTeam", { teamId: id });
  return normalizeTeam(field(graphql(`query Team($id: String!) { team(id: $id) { ${TEAM} } }`, { id }, "getTeam"), "team", "getTeam"), "getTeam");
}

/**
 * The workspace's projects.
 * @param options Paging (`first`, `after`).
 * @returns One page of projects.
 * @capability linear.app/listProjects List projects.
 */
export function listProjects(options?: PageOptions | null): Page<Project> {
  const vars = pageVariables(options);
  check("linear.app/listProjects", {});
  const data = graphql(`query Projects($first: Int!, $after: String) { projects(first: $first, after: $after) { nodes { ${PROJECT} } ${PAGE_INFO} } }`, vars, "listProjects");
  return page(field(data, "projects", "listProjects"), normalizeProject, "listProjects");
}

/**
 * The workspace's users.
 * @param options Paging (`first`, `after`).
 * @returns One page of users.
 * @capability linear.app/listUsers List users.
 */
export function listUsers(options?: PageOptions | null): Page<User> {
  const vars = pageVariables(options);
  check("linear.app/listUsers", {});
  const data = graphql(`query Users($first: Int!, $after: String) { users(first: $first, after: $after) { nodes { ${USER} } ${PAGE_INFO} } }`, vars, "listUsers");
  return page(field(data, "users", "listUsers"), normalizeUser, "listUsers");
}

/**
 * Issues, newest activity first, optionally of one team, assignee or state type.
 * @param options Filters and paging.
 * @returns One page of issues.
 * @capability linear.app/listIssues { teamId: string } List issues; `teamId` is the team filter, or null when none.
 */
export function listIssues(options?: ListIssuesOptions | null): Page<Issue> {
  const o = record(options, "options");
  const vars = pageVariables({ first: o.first, after: o.after });
  const teamId = o.teamId == null ? null : idArg(o.teamId, "options.teamId");
  const assigneeId = o.assigneeId == null ? null : idArg(o.assigneeId, "options.assigneeId");
  const stateType = o.stateType ?? null;
  if (stateType !== null && !STATE_TYPES.includes(stateType)) throw invalid("options.stateType", "one of " + STATE_TYPES.join(", "));
  const filter = compact({
    team: teamId === null ? undefined : { id: { eq: teamId } },
    assignee: assigneeId === null ? undefined : { id: { eq: assigneeId } },
    state: stateType === null ? undefined : { type: { eq: stateType } },
  });
  check("linear.app/listIssues", { teamId });
  const data = graphql(`query Issues($first: Int!, $after: String, $filter: IssueFilter) { issues(first: $first, after: $after, filter: $filter, orderBy: updatedAt) { nodes { ${ISSUE} } ${PAGE_INFO} } }`, { ...vars, filter }, "listIssues");
  return page(field(data, "issues", "listIssues"), normalizeIssue, "listIssues");
}

/**
 * One issue, by id or identifier (`ENG-123`).
 * @param issueId The issue's id or identifier.
 * @returns The issue (a missing one throws code `not_found`).
 * @capability linear.app/getIssue Read an issue.
 */
export function getIssue(issueId: string): Issue {
  const id = idArg(issueId, "issueId");
  check("linear.app/getIssue", {});
  return normalizeIssue(field(graphql(`query Issue($id: String!) { issue(id: $id) { ${ISSUE} } }`, { id }, "getIssue"), "issue", "getIssue"), "getIssue");
}

/**
 * Create an issue in a team.
 * @param issue Team, title and optional fields.
 * @returns The new issue.
 * @capability linear.app/createIssue { teamId: string } Create an issue in a team.
 */
export function createIssue(issue: NewIssue): Issue {
  const o = record(issue, "issue");
  const teamId = idArg(o.teamId, "issue.teamId");
  const input = compact({
    teamId,
    title: text(o.title, "issue.title", 255),
    description: o.description == null ? undefined : text(o.description, "issue.description", 100000, true),
    priority: priorityOf(o.priority, "issue.priority"),
    assigneeId: o.assigneeId == null ? undefined : idArg(o.assigneeId, "issue.assigneeId"),
    projectId: o.projectId == null ? undefined : idArg(o.projectId, "issue.projectId"),
    stateId: o.stateId == null ? undefined : idArg(o.stateId, "issue.stateId"),
    labelIds: idList(o.labelIds, "issue.labelIds"),
  });
  check("linear.app/createIssue", { teamId });
  const data = graphql(`mutation CreateIssue($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { ${ISSUE} } } }`, { input }, "createIssue");
  return normalizeIssue(payload(data, "issueCreate", "issue", "createIssue"), "createIssue");
}

/**
 * Change an issue. The issue is read first to learn its team.
 * @param issueId The issue's id or identifier.
 * @param changes Fields to change.
 * @returns The updated issue.
 * @capability linear.app/updateIssue { teamId: string, projectId: string } Change an issue; `teamId` is its team, `projectId` the project it moves into or null.
 */
export function updateIssue(issueId: string, changes: IssueChanges): Issue {
  const id = idArg(issueId, "issueId");
  const o = record(changes, "changes");
  const projectId = o.projectId == null ? null : idArg(o.projectId, "changes.projectId");
  const input = compact({
    title: o.title == null ? undefined : text(o.title, "changes.title", 255),
    description: o.description == null ? undefined : text(o.description, "changes.description", 100000, true),
    priority: priorityOf(o.priority, "changes.priority"),
    assigneeId: o.assigneeId == null ? undefined : idArg(o.assigneeId, "changes.assigneeId"),
    projectId: projectId ?? undefined,
    stateId: o.stateId == null ? undefined : idArg(o.stateId, "changes.stateId"),
    labelIds: idList(o.labelIds, "changes.labelIds"),
  });
  if (Object.keys(input).length === 0) throw invalid("changes", "at least one field to change");
  const teamId = teamOfIssue(id, "updateIssue");
  check("linear.app/updateIssue", { teamId, projectId });
  const data = graphql(`mutation UpdateIssue($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success issue { ${ISSUE} } } }`, { id, input }, "updateIssue");
  return normalizeIssue(payload(data, "issueUpdate", "issue", "updateIssue"), "updateIssue");
}

/**
 * An issue's comments, oldest first.
 * @param issueId The issue's id or identifier.
 * @param options Paging (`first`, `after`).
 * @returns One page of comments.
 * @capability linear.app/listComments List an issue's comments.
 */
export function listComments(issueId: string, options?: PageOptions | null): Page<Comment> {
  const id = idArg(issueId, "issueId");
  const vars = pageVariables(options);
  check("linear.app/listComments", {});
  const data = graphql(`query Comments($id: String!, $first: Int!, $after: String) { issue(id: $id) { comments(first: $first, after: $after) { nodes { ${COMMENT} } ${PAGE_INFO} } } }`, { id, ...vars }, "listComments");
  return page(field(field(data, "issue", "listComments"), "comments", "listComments"), normalizeComment, "listComments");
}

/**
 * Comment on an issue. The issue is read first to learn its team.
 * @param issueId The issue's id or identifier.
 * @param body Markdown text.
 * @returns The new comment.
 * @capability linear.app/createComment { teamId: string } Comment on an issue; `teamId` is the issue's team.
 */
export function createComment(issueId: string, body: string): Comment {
  const id = idArg(issueId, "issueId");
  const markdown = text(body, "body", 100000);
  const teamId = teamOfIssue(id, "createComment");
  check("linear.app/createComment", { teamId });
  const data = graphql(`mutation CreateComment($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { ${COMMENT} } } }`, { input: { issueId: id, body: markdown } }, "createComment");
  return normalizeComment(payload(data, "commentCreate", "comment", "createComment"), "createComment");
}

function sessionInput(options: AgentSessionOptions | null | undefined): Record<string, unknown> {
  const o = record(options, "options");
  return compact({ externalLink: o.externalLink == null ? undefined : text(o.externalLink, "options.externalLink", 2000) });
}

/**
 * Start an agent session on an issue (the agent is the API key's app user).
 * @param issueId The issue's id or identifier.
 * @param options `externalLink` to the agent's own view.
 * @returns The session.
 * @capability linear.app/createAgentSessionOnIssue Start an agent session on an issue.
 */
export function createAgentSessionOnIssue(issueId: string, options?: AgentSessionOptions | null): AgentSession {
  const input = { issueId: idArg(issueId, "issueId"), ...sessionInput(options) };
  check("linear.app/createAgentSessionOnIssue", {});
  const data = graphql(`mutation SessionOnIssue($input: AgentSessionCreateOnIssue!) { agentSessionCreateOnIssue(input: $input) { success agentSession { ${SESSION} } } }`, { input }, "createAgentSessionOnIssue");
  return normalizeSession(payload(data, "agentSessionCreateOnIssue", "agentSession", "createAgentSessionOnIssue"), "createAgentSessionOnIssue");
}

/**
 * Start an agent session on a comment thread.
 * @param commentId The comment's id.
 * @param options `externalLink` to the agent's own view.
 * @returns The session.
 * @capability linear.app/createAgentSessionOnComment Start an agent session on a comment.
 */
export function createAgentSessionOnComment(commentId: string, options?: AgentSessionOptions | null): AgentSession {
  const input = { commentId: idArg(commentId, "commentId"), ...sessionInput(options) };
  check("linear.app/createAgentSessionOnComment", {});
  const data = graphql(`mutation SessionOnComment($input: AgentSessionCreateOnComment!) { agentSessionCreateOnComment(input: $input) { success agentSession { ${SESSION} } } }`, { input }, "createAgentSessionOnComment");
  return normalizeSession(payload(data, "agentSessionCreateOnComment", "agentSession", "createAgentSessionOnComment"), "createAgentSessionOnComment");
}

/**
 * One agent session.
 * @param sessionId The session's id.
 * @returns The session.
 * @capability linear.app/getAgentSession Read an agent session.
 */
export function getAgentSession(sessionId: string): AgentSession {
  const id = idArg(sessionId, "sessionId");
  check("linear.app/getAgentSession", {});
  return normalizeSession(field(graphql(`query Session($id: String!) { agentSession(id: $id) { ${SESSION} } }`, { id }, "getAgentSession"), "agentSession", "getAgentSession"), "getAgentSession");
}

/**
 * Change an agent session's external link or plan.
 * @param sessionId The session's id.
 * @param changes `externalLink` and/or `plan`.
 * @returns The session.
 * @capability linear.app/updateAgentSession Change an agent session.
 */
export function updateAgentSession(sessionId: string, changes: AgentSessionChanges): AgentSession {
  const id = idArg(sessionId, "sessionId");
  const o = record(changes, "changes");
  let plan: Record<string, unknown> | undefined;
  if (o.plan != null) {
    if (typeof o.plan !== "object" || Array.isArray(o.plan)) throw invalid("changes.plan", "an object");
    plan = JSON.parse(JSON.stringify(o.plan)) as Record<string, unknown>;
  }
  const input = compact({ externalLink: o.externalLink == null ? undefined : text(o.externalLink, "changes.externalLink", 2000), plan });
  if (Object.keys(input).length === 0) throw invalid("changes", "externalLink or plan");
  check("linear.app/updateAgentSession", {});
  const data = graphql(`mutation UpdateSession($id: String!, $input: AgentSessionUpdateInput!) { agentSessionUpdate(id: $id, input: $input) { success agentSession { ${SESSION} } } }`, { id, input }, "updateAgentSession");
  return normalizeSession(payload(data, "agentSessionUpdate", "agentSession", "updateAgentSession"), "updateAgentSession");
}

/**
 * Report what the agent is doing in a session: a thought, an action (with its parameter and
 * result), an elicitation (a question to the user), a response (the final answer) or an error.
 * @param sessionId The session's id.
 * @param content The activity.
 * @param ephemeral Shown only until the next activity (thoughts and actions only).
 * @returns The activity.
 * @capability linear.app/createAgentActivity Report an agent activity.
 */
export function createAgentActivity(sessionId: string, content: AgentActivityContent, ephemeral?: boolean | null): AgentActivity {
  const id = idArg(sessionId, "sessionId");
  const c = record(content as { type?: unknown; body?: unknown; action?: unknown; parameter?: unknown; result?: unknown }, "content");
  const type = c.type;
  if (typeof type !== "string" || !ACTIVITY_TYPES.includes(type)) throw invalid("content.type", "one of " + ACTIVITY_TYPES.join(", "));
  const wire =
    type === "action"
      ? compact({ type, action: text(c.action, "content.action", 1000), parameter: text(c.parameter, "content.parameter", 10000, true), result: c.result == null ? undefined : text(c.result, "content.result", 100000, true) })
      : { type, body: text(c.body, "content.body", 100000) };
  if (ephemeral != null && typeof ephemeral !== "boolean") throw invalid("ephemeral", "true or false");
  const input = compact({ agentSessionId: id, content: wire, ephemeral: ephemeral ?? undefined });
  check("linear.app/createAgentActivity", {});
  const data = graphql(`mutation Activity($input: AgentActivityCreateInput!) { agentActivityCreate(input: $input) { success agentActivity { ${ACTIVITY} } } }`, { input }, "createAgentActivity");
  return normalizeActivity(payload(data, "agentActivityCreate", "agentActivity", "createAgentActivity"), "createAgentActivity");
}

/**
 * A session's activities, oldest first.
 * @param sessionId The session's id.
 * @param options Paging (`first`, `after`).
 * @returns One page of activities.
 * @capability linear.app/listAgentActivities List an agent session's activities.
 */
export function listAgentActivities(sessionId: string, options?: PageOptions | null): Page<AgentActivity> {
  const id = idArg(sessionId, "sessionId");
  const vars = pageVariables(options);
  check("linear.app/listAgentActivities", {});
  const data = graphql(`query Activities($id: String!, $first: Int!, $after: String) { agentSession(id: $id) { activities(first: $first, after: $after) { nodes { ${ACTIVITY} } ${PAGE_INFO} } } }`, { id, ...vars }, "listAgentActivities");
  return page(field(field(data, "agentSession", "listAgentActivities"), "activities", "listAgentActivities"), normalizeActivity, "listAgentActivities");
}
