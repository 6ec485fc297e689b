import { label, expectLocalFailure } from "svc:test";
import { sendEmail, createDraft, reply, getThread, searchThreads, modifyMessageLabels, createLabel, downloadAttachment, triage, getProfile, GmailError } from "@svc/gmail";

/** The code of the GmailError `fn` throws before any request. */
const code = (fn: () => unknown): string => expectLocalFailure(fn, "GmailError");

export function main() {
  label("sendEmail needs recipients and a body");
  assert(code(() => sendEmail({ subject: "x", text: "y" })) === "invalid_argument");
  assert(code(() => sendEmail({ to: "ada@example.com", subject: "x" })) === "invalid_argument");
  label("a recipient without a valid address is refused");
  assert(code(() => sendEmail({ to: "Ada Lovelace", subject: "x", text: "y" })) === "invalid_argument");
  assert(code(() => sendEmail({ to: ["ada@example.com", "not an address"], subject: "x", text: "y" })) === "invalid_argument");
  label("a multi-line subject (header injection) is refused");
  assert(code(() => sendEmail({ to: "ada@example.com", subject: "x\r\nBcc: eve@example.com", text: "y" })) === "invalid_argument");
  label("attachments need a path");
  assert(code(() => createDraft({ to: "ada@example.com", text: "y", attachments: [{ path: "" }] })) === "invalid_argument");
  label("ids are letters, digits, _ and -");
  assert(code(() => getThread("../labels")) === "invalid_argument");
  assert(code(() => reply("abc/def", "hi")) === "invalid_argument");
  label("a reply needs a body");
  assert(code(() => reply("18c2f0a1b2c3d4e5", {})) === "invalid_argument");
  label("page sizes are bounded");
  assert(code(() => searchThreads("is:unread", { maxResults: 0 })) === "invalid_argument");
  assert(code(() => triage({ maxResults: 51 })) === "invalid_argument");
  label("label changes must change something");
  assert(code(() => modifyMessageLabels("18c2f0a1b2c3d4e5", {})) === "invalid_argument");
  label("label names are one line");
  assert(code(() => createLabel("a\nb")) === "invalid_argument");
  label("downloadAttachment needs a destination path");
  assert(code(() => downloadAttachment("18c2f0a1b2c3d4e5", "ANGjdJ8", " ")) === "invalid_argument");
  label("without GOOGLE_ACCESS_TOKEN the call throws missing_token before any request");
  assert(code(() => getProfile()) === "missing_token");
  label("display-name recipients parse (missing_token comes after the check)");
  assert(code(() => sendEmail({ to: '"Lovelace, Ada" <Ada@Example.COM>', cc: ["bob@example.org (Bob)"], bcc: "Eve <EVE@example.net>", subject: "x", text: "y" })) === "missing_token");
}
