import { label, expectException } from "svc:test";
import { listProjects, listIssues, getIssue, updateIssue, listIssueEvents, getIssueEvent, SentryError } from "@svc/sentry";

export function main() {
  label("bad arguments throw invalid_argument naming the field, before any request");
  const e = expectException(() => listProjects("acme/../x"), "SentryError") as SentryError;
  assert(e.code === "invalid_argument" && e.status === 0 && e.message.startsWith("organization:"), e.message);
  assert(expectException(() => listIssues("acme", { projects: ["web"] }), "SentryError").message.startsWith("options.projects:"));
  assert(expectException(() => listIssues("acme", { statsPeriod: "forever" }), "SentryError").message.startsWith("options.statsPeriod:"));
  assert(expectException(() => listIssues("acme", { limit: 500 }), "SentryError").message.startsWith("options.limit:"));
  assert(expectException(() => listIssues("acme", { cursor: "a b" }), "SentryError").message.startsWith("options.cursor:"));
  assert(expectException(() => getIssue("acme", "web", "12/34"), "SentryError").message.startsWith("issue:"));
  assert(expectException(() => updateIssue("acme", "web", "1", {}), "SentryError").message.startsWith("changes:"));
  assert(expectException(() => updateIssue("acme", "web", "1", { status: "closed" as "resolved" }), "SentryError").message.startsWith("changes.status:"));
  assert(expectException(() => listIssueEvents("acme", "web", "1", { full: "yes" as unknown as boolean }), "SentryError").message.startsWith("options.full:"));
  assert(expectException(() => getIssueEvent("acme", "web", "1", "newest"), "SentryError").message.startsWith("eventId:"));
}
