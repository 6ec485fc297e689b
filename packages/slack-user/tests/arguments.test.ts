import { label, expectLocalFailure } from "svc:test";
import { downloadFile, findUserByEmail, search, sendMessage, getFile, SlackError } from "@svc/slack-user";

/** The code of the SlackError `fn` throws before any request. */
const code = (fn: () => unknown): string => expectLocalFailure(fn, "SlackError");

export function main() {
  label("downloadFile accepts only files.slack.com URLs");
  assert(code(() => downloadFile("https://example.com/x.pdf", "/x.pdf")) === "invalid_argument");
  assert(code(() => downloadFile("https://files.slack.com.evil.example/x", "/x.pdf")) === "invalid_argument");
  label("downloadFile needs a path");
  assert(code(() => downloadFile("https://files.slack.com/files-pri/T1-F1/x.pdf", "")) === "invalid_argument");
  label("a malformed email is refused");
  assert(code(() => findUserByEmail("not an email")) === "invalid_argument");
  label("an empty search is refused");
  assert(code(() => search("  ")) === "invalid_argument");
  label("search sort must be score or timestamp");
  assert(code(() => search("deploy", { sort: "newest" as "score" })) === "invalid_argument");
  label("a channel name instead of an id is refused");
  assert(code(() => sendMessage("general", "hi")) === "invalid_argument");
  label("a file id must look like F…");
  assert(code(() => getFile("report.pdf")) === "invalid_argument");
}
