import { label, expectException, expectLocalFailure } from "svc:test";
import { sendMessage, addReaction, openGroupDirectMessage, listMessages, getUser, SlackError } from "@svc/slack-bot";

/** The code of the SlackError `fn` throws before any request. */
const code = (fn: () => unknown): string => expectLocalFailure(fn, "SlackError");

export function main() {
  label("a channel name instead of an id is refused before any request");
  assert(code(() => sendMessage("#general", "hi")) === "invalid_argument");
  label("empty text is refused");
  assert(code(() => sendMessage("C0123ABCD", "  ")) === "invalid_argument");
  label("a malformed ts is refused");
  assert(code(() => addReaction("C0123ABCD", "yesterday", "thumbsup")) === "invalid_argument");
  label("a group direct message needs 2 to 8 distinct users");
  assert(code(() => openGroupDirectMessage(["U0123ABCD", "U0123ABCD"])) === "invalid_argument");
  label("a page size out of range is refused");
  assert(code(() => listMessages("C0123ABCD", { limit: 0 })) === "invalid_argument");
  label("a bad user id is refused, naming the parameter");
  const error = expectException(() => getUser("someone"), "SlackError");
  assert(error.message.includes("userId"));
}
