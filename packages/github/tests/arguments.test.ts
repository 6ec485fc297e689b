import { label, expectException } from "svc:test";
import github, { GitHubError } from "@svc/github";

const repo = { owner: "acme", name: "widgets" };

function code(fn: () => unknown): string {
  const error = expectException(fn, "GitHubError") as GitHubError;
  return `${error.code} ${error.status}: ${error.message}`;
}

export function main() {
  label("GitHubError carries code, status and empty metadata by default");
  const plain = new GitHubError("http_error", "boom", 500);
  assert(plain.name === "GitHubError" && plain.code === "http_error" && plain.status === 500 && plain instanceof Error);
  assert(plain.requestId === null && plain.documentationUrl === null && plain.retryAfterSeconds === null);
  assert(plain.rateLimitRemaining === null && plain.rateLimitReset === null && plain.errors.length === 0);

  label("repositories are {owner, name} objects; anything else is invalid_argument naming the field");
  assert(code(() => github.getRepository("acme/widgets" as never)).startsWith("invalid_argument 0: repository: expected an object {owner, name}"));
  assert(code(() => github.getRepository({ owner: "", name: "x" })).includes("repository.owner"));
  assert(code(() => github.getRepository({ owner: "acme", name: ".." })).includes("repository.name"));
  assert(code(() => github.getRepository({ owner: "a/b", name: "x" })).includes("repository.owner"));

  label("numbers, branches, paths, SHAs and options are validated before anything else");
  assert(code(() => github.getIssue(repo, 1.5)).includes("number: expected a positive whole number"));
  assert(code(() => github.getBranch(repo, "a..b")).includes("branch"));
  assert(code(() => github.getBranch(repo, "with space")).includes("branch"));
  assert(code(() => github.readTextFile(repo, "a/../../b")).includes("path"));
  assert(code(() => github.readTextFile(repo, "")).includes("path"));
  assert(code(() => github.createBranch(repo, "x", "main")).includes("fromSha"));
  assert(code(() => github.listBranches(repo, { perPage: 0 })).includes("options.perPage"));
  assert(code(() => github.listIssues(repo, { state: "maybe" as never })).includes("options.state"));
  assert(code(() => github.searchRepositories("x", { sort: "best" as never })).includes("options.sort"));
  assert(code(() => github.updateIssue(repo, 1, {})).includes("at least one"));
  assert(code(() => github.createPullRequestReview(repo, 1, { event: "COMMENT" })).includes("input.body"));

  label("page tokens are opaque and refuse anything this Package did not make");
  assert(code(() => github.listBranches(repo, { pageToken: "https://api.github.com/evil" })).includes("options.pageToken"));
  assert(code(() => github.listBranches(repo, { pageToken: "cDo5OTk5OTk5" })).includes("options.pageToken"));
  assert(code(() => github.searchPullRequestSummaries(repo, null, { pageToken: "cDoy" })).includes("options.pageToken"));

  label("commitFiles checks every change and the expected head SHA");
  assert(code(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: "abc", files: [{ path: "a", content: "x" }] })).includes("input.expectedHeadSha"));
  const sha = "a".repeat(40);
  assert(code(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: sha, files: [] })).includes("input.files"));
  assert(code(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: sha, files: [{ path: "a", content: "x", delete: true }] })).includes("exactly one"));
  assert(code(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: sha, files: [{ path: "a", content: "x" }, { path: "/a", content: "y" }] })).includes("twice"));
  assert(code(() => github.commitFiles(repo, "main", { message: "m", expectedHeadSha: sha, files: [{ path: "a", contentBase64: "not base64!" }] })).includes("contentBase64"));
  assert(code(() => github.commitFiles(repo, "main", { message: "", expectedHeadSha: sha, files: [{ path: "a", content: "x" }] })).includes("input.message"));

  label("repository-scoped searches refuse syntax that leaves the repository");
  for (const query of ["bug repo:other/x", "org:acme bug", "x user:me", "x owner:me", "x type:pr", "x is:issue", "x is:pr", "x IS:PR", "a OR b", "(a) OR(b)", "-repo:a/b x"]) {
    assert(code(() => github.searchIssues(repo, query)).startsWith("invalid_argument 0: query:"), query);
    assert(code(() => github.searchCode(repo, query)).startsWith("invalid_argument 0: query:"), query);
  }
  assert(code(() => github.searchPullRequests(repo, "")).includes("query"));

  label("cross-repository searches refuse qualifiers that override their checked options");
  for (const query of ["x author:me", "x created:>2024-01-01", "x is:pr", "a OR b"]) {
    assert(code(() => github.searchIssuesAcrossRepositories(query)).startsWith("invalid_argument 0: query:"), query);
  }
  assert(code(() => github.searchPullRequestsAcrossRepositories("x", { createdSince: "yesterday" })).includes("options.createdSince"));

  label("without GITHUB_TOKEN a valid call throws missing_token after its check and sends nothing");
  assert(code(() => github.getViewer()).startsWith("missing_token 0: GITHUB_TOKEN is not set"));
  assert(code(() => github.searchIssues(repo, "crash or hang is:open")).startsWith("missing_token 0"));
  assert(code(() => github.searchPullRequestSummaries(repo, "is:open is:private")).startsWith("missing_token 0"));
}
