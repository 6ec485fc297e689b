// File uploads of @svc/notion: a file of the caller's file area sent in one part, and the
// uploads' status.
import { check } from "svc:security";
import { read, stat } from "svc:fs";
import { NotionError, notionGet, notionPost, notionPostMultipart, query } from "./client";
import { choiceArg, idArg, optionalTextArg, optionsArg, pageSizeArg, pageTokenArg, pathArg, type PageOptions } from "./args";
import { toFileUpload, toList, type FileUpload, type Page } from "./model";

/** Largest file `uploadFile` sends in one part (Notion's single-part limit). */
const MAX_UPLOAD = 20 * 1024 * 1024;

function contentType(filename: string): string | undefined {
  const types: Record<string, string> = {
    pdf: "application/pdf", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", svg: "image/svg+xml",
    txt: "text/plain", md: "text/markdown", csv: "text/csv", json: "application/json", html: "text/html",
    mp3: "audio/mpeg", wav: "audio/wav", mp4: "video/mp4", mov: "video/quicktime", zip: "application/zip",
    docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  };
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  return types[extension];
}

function multipart(filename: string, type: string, bytes: Uint8Array): { body: Uint8Array; boundary: string } {
  const boundary = "svc-notion-" + Math.random().toString(16).slice(2) + Math.random().toString(16).slice(2);
  const safeName = filename.replace(/["\r\n\\]/g, "_");
  const encoder = new TextEncoder();
  const head = encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const body = new Uint8Array(head.length + bytes.length + tail.length);
  body.set(head, 0);
  body.set(bytes, head.length);
  body.set(tail, head.length + bytes.length);
  return { body, boundary };
}

// ---- file uploads ----

/**
 * Upload a file of the file area to Notion (at most 20 MiB), ready to attach to a page or block. The caller's own `fs.read` rule for `path` is checked too.
 * @param path File-area path of the file.
 * @param options `filename` (default the path's last segment), `contentType` (default from the extension).
 * @returns The upload, `status: "uploaded"` once sent.
 * @capability svc/notion.uploadFile { path }
 */
export function uploadFile(path: string, options?: { filename?: string | null; contentType?: string | null } | null): FileUpload {
  const source = pathArg(path);
  const o = optionsArg(options);
  const filename = optionalTextArg(o.filename, "options.filename") ?? source.split("/").pop() ?? "";
  if (filename === "") throw new NotionError("invalid_argument", "options.filename is needed when the path ends with /");
  const type = optionalTextArg(o.contentType, "options.contentType") ?? contentType(filename);
  if (!type) throw new NotionError("invalid_argument", `cannot tell the content type of ${filename}; give options.contentType`);
  check("svc/notion.uploadFile", { path: source });
  check("fs.read", { path: source });
  const info = stat(source);
  if (info == null || info.kind !== "file") throw new NotionError("invalid_argument", `${source} is not a file`);
  if (info.size > MAX_UPLOAD) throw new NotionError("invalid_argument", `${source} has ${info.size} bytes; uploadFile sends at most ${MAX_UPLOAD}`);
  const bytes = read(source);
  if (bytes == null) throw new NotionError("invalid_argument", `${source} is too large to read`);
  const created = notionPost("file_uploads", { mode: "single_part", filename, content_type: type });
  const id = typeof created.id === "string" ? created.id : "";
  if (id === "") throw new NotionError("invalid_response", "Notion created a file upload without an id", 200);
  const { body, boundary } = multipart(filename, type, bytes);
  return toFileUpload(notionPostMultipart(`file_uploads/${id}/send`, body, boundary));
}

/**
 * Fetch a file upload's status.
 * @param uploadId The upload id.
 * @returns The upload.
 * @capability svc/notion.getFileUpload { uploadId }
 */
export function getFileUpload(uploadId: string): FileUpload {
  const upload = idArg(uploadId, "uploadId");
  check("svc/notion.getFileUpload", { uploadId: upload });
  return toFileUpload(notionGet("file_uploads/" + upload));
}

/**
 * List the connection's file uploads, one page at a time.
 * @param options `status` (`pending`, `uploaded`, `expired`, `failed`), `pageSize`, `pageToken`.
 * @returns A page of uploads.
 * @capability svc/notion.listFileUploads {}
 */
export function listFileUploads(options?: ({ status?: "pending" | "uploaded" | "expired" | "failed" | null } & PageOptions) | null): Page<FileUpload> {
  const o = optionsArg(options);
  const status = choiceArg(o.status, "options.status", ["pending", "uploaded", "expired", "failed"] as const);
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.listFileUploads", {});
  return toList(notionGet("file_uploads" + query({ status, page_size: pageSize, start_cursor: cursor })), toFileUpload);
}
