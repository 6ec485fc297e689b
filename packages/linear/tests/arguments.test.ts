import { label, expectException } from "svc:test";
import { getIssue, listIssues, createIssue, updateIssue, createComment, createAgentActivity, updateAgentSession, LinearError } from "@svc/linear";

export function main() {
  label("bad arguments throw invalid_argument naming the field, before any request");
  const e = expectException(() => getIssue("ENG 123"), "LinearError") as LinearError;
  assert(e.code === "invalid_argument" && e.status === 0 && e.message.startsWith("issueId:"), e.message);
  assert(expectException(() => listIssues({ first: 0 }), "LinearError").message.startsWith("options.first:"));
  assert(expectException(() => listIssues({ stateType: "done" as "started" }), "LinearError").message.startsWith("options.stateType:"));
  assert(expectException(() => createIssue({ teamId: "t1", title: "" }), "LinearError").message.startsWith("issue.title:"));
  assert(expectException(() => createIssue({ teamId: "t1", title: "x", priority: 9 }), "LinearError").message.startsWith("issue.priority:"));
  assert(expectException(() => createIssue({ teamId: "t1", title: "x", labelIds: ["ok", "not ok"] }), "LinearError").message.startsWith("issue.labelIds[1]:"));
  assert(expectException(() => updateIssue("ENG-1", {}), "LinearError").message.startsWith("changes:"));
  assert(expectException(() => createComment("ENG-1", "  "), "LinearError").message.startsWith("body:"));
  assert(expectException(() => createAgentActivity("s1", { type: "shout" as "thought", body: "x" }), "LinearError").message.startsWith("content.type:"));
  assert(expectException(() => createAgentActivity("s1", { type: "action", action: "", parameter: "p" }), "LinearError").message.startsWith("content.action:"));
  assert(expectException(() => updateAgentSession("s1", { plan: [] as unknown as Record<string, unknown> }), "LinearError").message.startsWith("changes.plan:"));
}
