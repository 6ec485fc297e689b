import { label, expectException, expectLocalFailure } from "svc:test";
import { fetchPage, createPage, createPages, updatePageMarkdown, uploadFile, getBlock, search, NotionError } from "@svc/notion";

/** The code of the NotionError `fn` throws before any request. */
const code = (fn: () => unknown): string => expectLocalFailure(fn, "NotionError");

export function main() {
  label("an id that is neither 32 hex digits nor a Notion URL is refused");
  assert(code(() => fetchPage("my page")) === "invalid_argument");
  assert(code(() => fetchPage("https://example.com/0a1b2c3d4e5f60718293a4b5c6d7e8f9")) === "invalid_argument");
  label("markdown and children together are refused");
  assert(code(() => createPage("0a1b2c3d4e5f60718293a4b5c6d7e8f9", { markdown: "# x", children: [{ type: "divider", divider: {} }] })) === "invalid_argument");
  label("a batch needs items, each with a valid parentId, and names the failing entry");
  assert(code(() => createPages([])) === "invalid_argument");
  const bad = expectException(() => createPages([{ parentId: "nope" }]), "NotionError");
  assert(bad.message.includes("pages[0].parentId"));
  label("Markdown edits need oldStr and newStr");
  assert(code(() => updatePageMarkdown("0a1b2c3d4e5f60718293a4b5c6d7e8f9", [{ oldStr: "", newStr: "x" }])) === "invalid_argument");
  label("uploadFile needs a content type it can tell");
  assert(code(() => uploadFile("/data/blob.unknownext")) === "invalid_argument");
  label("getBlock needs a block id");
  assert(code(() => getBlock("0a1b2c3d4e5f60718293a4b5c6d7e8f9", "")) === "invalid_argument");
  label("search filter must be page or data_source");
  assert(code(() => search("x", { filter: "database" as "page" })) === "invalid_argument");
}
