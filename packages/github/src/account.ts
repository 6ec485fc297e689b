// The token's own account: viewer, teams, rate limit, and the account-wide searches.
import { check } from "svc:security";
import { apiList, pagePosition } from "./client";
import { login, options as optionsArg, searchQuery, slug } from "./args";
import * as N from "./normalize";
import { listPage, pageQuery, searchPage, sortQuery } from "./query";
import type { Page, RateLimit, Repository, SearchPage, Team, UserSummary, Viewer } from "./types";

/** Paging options of every list: `perPage` 1–100 (default 30) and the previous page's `nextPageToken` (which keeps its page size). */
export interface ListOptions {
  perPage?: number | null;
  pageToken?: string | null;
}

/** Options of the account-wide searches. */
export interface SearchOptions extends ListOptions {
  /** Sort key (repositories: `stars`, `forks`, `help-wanted-issues`, `updated`; users: `followers`, `repositories`, `joined`); default best match. */
  sort?: string | null;
  /** `asc` or `desc` (default `desc`). */
  order?: "asc" | "desc" | null;
}

/**
 * The user the token belongs to.
 * @returns The authenticated user.
 * @capability github.com/viewer.get {}
 */
export function getViewer(): Viewer {
  check("github.com/viewer.get", {});
  return N.viewer(apiList("user", "getViewer").data, "getViewer");
}

/**
 * The teams the authenticated user belongs to, across organisations.
 * @param options Paging.
 * @returns One page of teams.
 * @capability github.com/teams.list {}
 */
export function listTeams(options?: ListOptions | null): Page<Team> {
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/teams.list", {});
  return listPage(apiList(`user/teams?${pageQuery(perPage, page)}`, "listTeams"), page, perPage, "listTeams", N.team);
}

/**
 * The members of an organisation's team.
 * @param org Organisation login.
 * @param teamSlug The team's slug (as in its URL).
 * @param options Paging.
 * @returns One page of members.
 * @capability github.com/teamMembers.list { org: string, teamSlug: string }
 */
export function listTeamMembers(org: string, teamSlug: string, options?: ListOptions | null): Page<UserSummary> {
  const orgLogin = login(org, "org");
  const team = slug(teamSlug, "teamSlug");
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/teamMembers.list", { org: orgLogin, teamSlug: team });
  return listPage(apiList(`orgs/${encodeURIComponent(orgLogin)}/teams/${encodeURIComponent(team)}/members?${pageQuery(perPage, page)}`, "listTeamMembers"), page, perPage, "listTeamMembers", N.userSummary);
}

/**
 * Searches all repositories the token can see (GitHub search syntax, e.g. `language:go stars:>100`).
 * @param query Search text with qualifiers.
 * @param options Sort, order and paging.
 * @returns One page of repositories.
 * @capability github.com/repositories.search {}
 */
export function searchRepositories(query: string, options?: SearchOptions | null): SearchPage<Repository> {
  const q = searchQuery(query);
  const o = optionsArg(options);
  const sort = sortQuery(o, ["stars", "forks", "help-wanted-issues", "updated"]);
  const { perPage, page } = pagePosition(o);
  check("github.com/repositories.search", {});
  return searchPage(apiList(`search/repositories?q=${encodeURIComponent(q)}${sort}&${pageQuery(perPage, page)}`, "searchRepositories"), page, perPage, "searchRepositories", N.repository);
}

/**
 * Searches users and organisations (e.g. `location:berlin language:rust`).
 * @param query Search text with qualifiers.
 * @param options Sort, order and paging.
 * @returns One page of users.
 * @capability github.com/users.search {}
 */
export function searchUsers(query: string, options?: SearchOptions | null): SearchPage<UserSummary> {
  const q = searchQuery(query);
  const o = optionsArg(options);
  const sort = sortQuery(o, ["followers", "repositories", "joined"]);
  const { perPage, page } = pagePosition(o);
  check("github.com/users.search", {});
  return searchPage(apiList(`search/users?q=${encodeURIComponent(q)}${sort}&${pageQuery(perPage, page)}`, "searchUsers"), page, perPage, "searchUsers", N.userSummary);
}

/**
 * The token's rate limits (this call does not count against them).
 * @returns Limits per resource.
 * @capability github.com/rateLimit.get {}
 */
export function getRateLimit(): RateLimit {
  check("github.com/rateLimit.get", {});
  return N.rateLimit(apiList("rate_limit", "getRateLimit").data, "getRateLimit");
}
