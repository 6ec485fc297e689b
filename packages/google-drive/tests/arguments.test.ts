import { label, expectLocalFailure } from "svc:test";
import { getFile, searchFiles, downloadFile, uploadFile, shareFile, moveFile, createFolder, renameFile, listRecentFiles, DriveError } from "@svc/google-drive";

/** The code of the DriveError `fn` throws before any request. */
const code = (fn: () => unknown): string => expectLocalFailure(fn, "DriveError");

export function main() {
  label("file ids are letters, digits, _ and -");
  assert(code(() => getFile("../about")) === "invalid_argument");
  assert(code(() => moveFile("1AbC", "a b")) === "invalid_argument");
  label("search options are checked");
  assert(code(() => searchFiles("plan", { pageSize: 0 })) === "invalid_argument");
  assert(code(() => searchFiles("plan", { mimeType: "pdf" })) === "invalid_argument");
  assert(code(() => listRecentFiles({ pageSize: 1001 })) === "invalid_argument");
  label("downloads need a path and at most 52,428,800 bytes");
  assert(code(() => downloadFile("1AbC", "")) === "invalid_argument");
  assert(code(() => downloadFile("1AbC", "/x.pdf", { maxBytes: 60000000 })) === "invalid_argument");
  label("uploads need a path");
  assert(code(() => uploadFile("  ")) === "invalid_argument");
  label("shares name an address, a domain or anyone, and never the owner role");
  assert(code(() => shareFile("1AbC", "Bob", "reader")) === "invalid_argument");
  assert(code(() => shareFile("1AbC", "bob@example.com", "owner" as "reader")) === "invalid_argument");
  label("names are one line");
  assert(code(() => createFolder("a\nb")) === "invalid_argument");
  assert(code(() => renameFile("1AbC", "")) === "invalid_argument");
  label("without GOOGLE_ACCESS_TOKEN: missing_token");
  assert(code(() => getFile("1AbC")) === "missing_token");
}
