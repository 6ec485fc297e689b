// @svc/github: GitHub REST (and GraphQL for pull request summaries) for programs, with the
// token kept inside the Package and one capability check per operation.
export { GitHubError } from "./errors";
export type { GitHubErrorDetail } from "./errors";
export type { RepositoryRef } from "./args";
export type * from "./types";
export * from "./account";
export * from "./repos";
export * from "./issues";
export * from "./pulls";
