// @svc/google-drive: Google Drive API v3 for the user of the shared Google access token
// (GOOGLE_ACCESS_TOKEN, never refreshed by the Package). There is no permanent delete:
// `trashFile` moves to the trash and `restoreFile` brings back.
import { check } from "svc:security";
import { readBytes, stat } from "svc:fs";
import { download } from "svc:http";
import { failureCode } from "@svc/kit";
import { apiDelete, apiGet, apiGetText, apiPatch, apiPost, authorization, DriveError, putChunk, queryString, startUpload, type Json } from "./client";
import { flagArg, idArg, intArg, mimeArg, nameArg, optionalNameArg, optionsArg, pageTokenArg, parentArg, pathArg, principalArg, quote, roleArg } from "./args";
import { contentTypeFor, FILE_EXPORTS, FILE_FIELDS, FOLDER, isTextual, LIST_FIELDS, PERMISSION_FIELDS, TEXT_EXPORTS, toFile, toFilePage, toPermission, type DownloadedFile, type DriveFile, type FilePage, type FileText, type Permission } from "./model";

export { DriveError };
export type { DownloadedFile, DriveFile, DriveUser, FilePage, FileText, Permission } from "./model";

/** Files resource, for downloads (kept literal so the build derives the download host). */
const FILES = "https://www.googleapis.com/drive/v3/files/";
/** Resumable uploads send 8 MiB per request by default. */
const CHUNK = 8 * 1024 * 1024;
/** Drive requires chunks in multiples of 256 KiB (all but the last). */
const UNIT = 256 * 1024;
/** Largest download (and default cap): the http.download ceiling. */
const MAX_DOWNLOAD = 52428800;
/** Largest text `readText` returns (Drive's export limit is 10 MB). */
const MAX_TEXT = 10485760;

/** Options of `searchFiles`. */
export interface SearchOptions {
  /** Only this MIME type (e.g. "application/vnd.google-apps.document"). */
  mimeType?: string | null;
  /** Only direct children of this folder. */
  folderId?: string | null;
  /** Match the name only, not the content (default false). */
  nameOnly?: boolean | null;
  /** Include trashed files (default false). */
  includeTrashed?: boolean | null;
  /** Files per page, 1 to 1000 (default 100). */
  pageSize?: number | null;
  pageToken?: string | null;
}

/** Options of `listRecentFiles`. */
export interface RecentOptions {
  /** Files per page, 1 to 1000 (default 25). */
  pageSize?: number | null;
  pageToken?: string | null;
}

/** Options of `downloadFile`. */
export interface DownloadOptions {
  /** Replace an existing file (default false). */
  overwrite?: boolean | null;
  /** Largest download in bytes, up to 52,428,800 (the default). */
  maxBytes?: number | null;
  /** Export format for Google Docs, Sheets, Slides, Drawings (default PDF, XLSX, PDF, PNG). */
  exportMimeType?: string | null;
}

/** Options of `uploadFile`. */
export interface UploadOptions {
  /** Name in Drive (default: the path's last segment). */
  name?: string | null;
  /** Folder to upload into (default My Drive's root). */
  parentId?: string | null;
  /** Content type (default guessed from the name). */
  mimeType?: string | null;
  /** Bytes per upload request: a multiple of 262,144 up to 8,388,608 (the default, 8 MiB). */
  chunkSize?: number | null;
}

/** Options of `copyFile`. */
export interface CopyOptions {
  /** Name of the copy (default "Copy of …"). */
  name?: string | null;
  /** Folder of the copy (default: the original's). */
  parentId?: string | null;
}

/** Options of `shareFile`. */
export interface ShareOptions {
  /** Treat an email `principal` as a Google Group (default: a user). */
  group?: boolean | null;
  /** Email the person or group (default true, Drive's default). */
  notify?: boolean | null;
  /** Text for the notification email. */
  message?: string | null;
}

/**
 * Search files by text in their name or content, optionally by type and folder, one page at a time.
 * @param text Words to look for; omitted or empty lists everything the filters allow.
 * @param options `mimeType`, `folderId`, `nameOnly`, `includeTrashed`, `pageSize`, `pageToken`.
 * @returns A page of files, most recently modified first.
 * @capability svc/google-drive.searchFiles {}
 */
export function searchFiles(text?: string | null, options?: SearchOptions | null): FilePage {
  if (text != null && typeof text !== "string") throw new DriveError("invalid_argument", "text must be a string (omit it, or \"\", for no text filter)");
  const words = (text ?? "").trim();
  const o = optionsArg(options);
  const mimeType = mimeArg(o.mimeType, "options.mimeType");
  const folderId = o.folderId == null ? undefined : idArg(o.folderId, "options.folderId");
  const nameOnly = flagArg(o.nameOnly, "options.nameOnly") ?? false;
  const includeTrashed = flagArg(o.includeTrashed, "options.includeTrashed") ?? false;
  const pageSize = intArg(o.pageSize, "options.pageSize", 1, 1000) ?? 100;
  const pageToken = pageTokenArg(o.pageToken);
  const terms: string[] = [];
  if (words !== "") terms.push(nameOnly ? `name contains ${quote(words)}` : `(name contains ${quote(words)} or fullText contains ${quote(words)})`);
  if (mimeType) terms.push(`mimeType = ${quote(mimeType)}`);
  if (folderId) terms.push(`${quote(folderId)} in parents`);
  if (!includeTrashed) terms.push("trashed = false");
  check("svc/google-drive.searchFiles", {});
  // Drive refuses orderBy together with fullText search; it then ranks by relevance.
  const orderBy = words !== "" && !nameOnly ? undefined : "modifiedTime desc";
  return toFilePage(apiGet("files.list", "files", { q: terms.join(" and ") || undefined, pageSize, pageToken, orderBy, fields: LIST_FIELDS, includeItemsFromAllDrives: true, corpora: "allDrives" }));
}

/**
 * List the files the user worked with most recently (not trashed, no folders).
 * @param options `pageSize`, `pageToken`.
 * @returns A page of files, most recent first.
 * @capability svc/google-drive.listRecentFiles {}
 */
export function listRecentFiles(options?: RecentOptions | null): FilePage {
  const o = optionsArg(options);
  const pageSize = intArg(o.pageSize, "options.pageSize", 1, 1000) ?? 25;
  const pageToken = pageTokenArg(o.pageToken);
  check("svc/google-drive.listRecentFiles", {});
  return toFilePage(apiGet("files.list", "files", { q: `trashed = false and mimeType != ${quote(FOLDER)}`, orderBy: "recency desc", pageSize, pageToken, fields: LIST_FIELDS }));
}

/**
 * Read a file's metadata.
 * @param fileId File or folder id.
 * @returns The file; DriveError `not_found` when there is none (or it is not shared with the user).
 * @capability svc/google-drive.getFile { fileId }
 */
export function getFile(fileId: string): DriveFile {
  const id = idArg(fileId, "fileId");
  check("svc/google-drive.getFile", { fileId: id });
  return toFile(apiGet("files.get", `files/${id}`, { fields: FILE_FIELDS }));
}

/**
 * Read a document as text: Google Docs and Slides as plain text, Sheets as CSV (first sheet), stored text files as they are (at most 10 MiB).
 * @param fileId File id.
 * @returns The file's name, type and text.
 * @capability svc/google-drive.readText { fileId }
 */
export function readText(fileId: string): FileText {
  const id = idArg(fileId, "fileId");
  check("svc/google-drive.readText", { fileId: id });
  const file = toFile(apiGet("files.get", `files/${id}`, { fields: FILE_FIELDS }));
  const exportAs = TEXT_EXPORTS[file.mimeType];
  if (exportAs) return { fileId: id, name: file.name, mimeType: file.mimeType, exportedAs: exportAs, text: apiGetText("files.export", `files/${id}/export`, { mimeType: exportAs }) };
  if (file.folder || file.googleType || !isTextual(file.mimeType)) throw new DriveError("invalid_argument", `${file.name} (${file.mimeType}) has no text form; use downloadFile`);
  if (file.size !== null && file.size > MAX_TEXT) throw new DriveError("invalid_argument", `${file.name} has ${file.size} bytes, more than readText returns (${MAX_TEXT}); use downloadFile`);
  return { fileId: id, name: file.name, mimeType: file.mimeType, exportedAs: null, text: apiGetText("files.get", `files/${id}`, { alt: "media" }) };
}

/**
 * Download a file into the file area (Google-native files are exported, PDF by default). The caller's own `fs.write` rule is checked with `{path, max_bytes}`.
 * @param fileId File id.
 * @param path Destination path in the file area; its parent directory must exist.
 * @param options `overwrite`, `maxBytes`, `exportMimeType`.
 * @returns What was written.
 * @capability svc/google-drive.downloadFile { fileId, path }
 */
export function downloadFile(fileId: string, path: string, options?: DownloadOptions | null): DownloadedFile {
  const id = idArg(fileId, "fileId");
  const destination = pathArg(path);
  const o = optionsArg(options);
  const overwrite = flagArg(o.overwrite, "options.overwrite") ?? false;
  const maxBytes = intArg(o.maxBytes, "options.maxBytes", 1, MAX_DOWNLOAD) ?? MAX_DOWNLOAD;
  const exportMimeType = mimeArg(o.exportMimeType, "options.exportMimeType");
  check("svc/google-drive.downloadFile", { fileId: id, path: destination });
  check("fs.write", { path: destination, max_bytes: maxBytes });
  // Metadata first: a missing file or a refusal throws before anything is written.
  const file = toFile(apiGet("files.get", `files/${id}`, { fields: FILE_FIELDS }));
  if (file.folder) throw new DriveError("invalid_argument", `${file.name} is a folder; download its files one by one`);
  const exportAs = file.googleType ? exportMimeType ?? FILE_EXPORTS[file.mimeType] : undefined;
  if (file.googleType && !exportAs) throw new DriveError("invalid_argument", `${file.name} (${file.mimeType}) cannot be downloaded; give options.exportMimeType`);
  const rest = exportAs ? `${id}/export` + queryString({ mimeType: exportAs }) : id + queryString({ alt: "media" });
  const result = download(FILES + rest, destination, { headers: authorization(), maxBytes, overwrite });
  if (result.status < 200 || result.status > 299) {
    throw new DriveError(failureCode(result.status), `Drive download of ${file.name} failed: HTTP ${result.status}; the file written at ${result.path} holds Drive's answer`, result.status);
  }
  return { fileId: id, name: file.name, path: result.path, bytesWritten: result.bytesWritten, contentType: result.contentType, exportedAs: exportAs ?? null };
}

/**
 * Upload a file of the file area to Drive with a resumable upload in 8 MiB chunks. The caller's own `fs.read` rule is checked for `path`.
 * @param path File-area path to upload.
 * @param options `name`, `parentId`, `mimeType`, `chunkSize`.
 * @returns The new Drive file.
 * @capability svc/google-drive.uploadFile { path }
 */
export function uploadFile(path: string, options?: UploadOptions | null): DriveFile {
  const source = pathArg(path);
  const o = optionsArg(options);
  const name = optionalNameArg(o.name, "options.name") ?? source.split("/").filter((s) => s !== "").pop() ?? "upload";
  const parentId = o.parentId == null ? undefined : idArg(o.parentId, "options.parentId");
  const mimeType = mimeArg(o.mimeType, "options.mimeType") ?? contentTypeFor(name);
  const chunkSize = intArg(o.chunkSize, "options.chunkSize", UNIT, CHUNK) ?? CHUNK;
  if (chunkSize % UNIT !== 0) throw new DriveError("invalid_argument", `options.chunkSize must be a multiple of ${UNIT} bytes (256 KiB), as Drive requires`);
  check("svc/google-drive.uploadFile", { path: source });
  check("fs.read", { path: source });
  const info = stat(source);
  if (info === null || info.kind !== "file") throw new DriveError("invalid_argument", `${source} is not a file in the file area`);
  const total = info.size;
  const params = { fields: FILE_FIELDS };
  const uploadId = startUpload({ name, mimeType, ...(parentId ? { parents: [parentId] } : {}) }, mimeType, total, params);
  let offset = 0;
  // Each round either advances by what Drive stored or finishes; a stalled session is an error.
  for (let round = 0; round < Math.ceil(total / chunkSize) * 2 + 2; round++) {
    const chunk = total === 0 ? new Uint8Array(0) : readBytes(source, offset, Math.min(chunkSize, total - offset));
    const result = putChunk(uploadId, chunk, offset, total, params);
    if (result.done) return toFile(result.file);
    if (result.next <= offset && chunk.length > 0 && result.next !== offset) throw new DriveError("invalid_response", "Drive's upload session went backwards", 308);
    if (result.next >= total) throw new DriveError("invalid_response", "Drive stored every byte but did not finish the upload", 308);
    offset = result.next;
  }
  throw new DriveError("invalid_response", "Drive's upload session did not advance; nothing more was sent", 308);
}

/**
 * Create a folder.
 * @param name Folder name.
 * @param parentId Parent folder id; default My Drive's root (`root`).
 * @returns The new folder.
 * @capability svc/google-drive.createFolder { parentId }
 */
export function createFolder(name: string, parentId?: string | null): DriveFile {
  const folderName = nameArg(name, "name");
  const parent = parentArg(parentId, "parentId");
  check("svc/google-drive.createFolder", { parentId: parent });
  return toFile(apiPost("files.create", "files", { name: folderName, mimeType: FOLDER, parents: [parent] }, { fields: FILE_FIELDS }));
}

/**
 * Move a file or folder into another folder (out of all its current parents).
 * @param fileId File or folder id.
 * @param parentId Destination folder id (`root` for My Drive).
 * @returns The moved file.
 * @capability svc/google-drive.moveFile { fileId, parentId }
 */
export function moveFile(fileId: string, parentId: string): DriveFile {
  const id = idArg(fileId, "fileId");
  const parent = idArg(parentId, "parentId");
  check("svc/google-drive.moveFile", { fileId: id, parentId: parent });
  const current = apiGet("files.get", `files/${id}`, { fields: "parents" });
  const old = Array.isArray(current.parents) ? current.parents.filter((p): p is string => typeof p === "string" && p !== parent) : [];
  return toFile(apiPatch("files.update", `files/${id}`, {}, { addParents: parent, removeParents: old.join(",") || undefined, fields: FILE_FIELDS }));
}

/**
 * Rename a file or folder.
 * @param fileId File or folder id.
 * @param name New name.
 * @returns The renamed file.
 * @capability svc/google-drive.renameFile { fileId }
 */
export function renameFile(fileId: string, name: string): DriveFile {
  const id = idArg(fileId, "fileId");
  const newName = nameArg(name, "name");
  check("svc/google-drive.renameFile", { fileId: id });
  return toFile(apiPatch("files.update", `files/${id}`, { name: newName }, { fields: FILE_FIELDS }));
}

/**
 * Copy a file (not a folder).
 * @param fileId File id.
 * @param options `name` and `parentId` of the copy.
 * @returns The copy.
 * @capability svc/google-drive.copyFile { fileId }
 */
export function copyFile(fileId: string, options?: CopyOptions | null): DriveFile {
  const id = idArg(fileId, "fileId");
  const o = optionsArg(options);
  const name = optionalNameArg(o.name, "options.name");
  const parentId = o.parentId == null ? undefined : idArg(o.parentId, "options.parentId");
  check("svc/google-drive.copyFile", { fileId: id });
  return toFile(apiPost("files.copy", `files/${id}/copy`, { ...(name ? { name } : {}), ...(parentId ? { parents: [parentId] } : {}) }, { fields: FILE_FIELDS }));
}

/**
 * Share a file with a person, a group, a whole domain or anyone with the link.
 * @param fileId File or folder id.
 * @param principal "ada@example.com", "domain:example.com" or "anyone" (lower-cased for rules).
 * @param role `reader`, `commenter`, `writer`, `fileOrganizer` or `organizer` (never `owner`).
 * @param options `group`, `notify`, `message`.
 * @returns The new permission.
 * @capability svc/google-drive.shareFile { fileId, principal }
 */
export function shareFile(fileId: string, principal: string, role: "reader" | "commenter" | "writer" | "fileOrganizer" | "organizer", options?: ShareOptions | null): Permission {
  const id = idArg(fileId, "fileId");
  const o = optionsArg(options);
  const who = principalArg(principal, flagArg(o.group, "options.group") ?? false);
  const grant = roleArg(role);
  const notify = flagArg(o.notify, "options.notify");
  if (o.message != null && typeof o.message !== "string") throw new DriveError("invalid_argument", "options.message must be a string");
  const message = o.message == null ? undefined : (o.message as string);
  check("svc/google-drive.shareFile", { fileId: id, principal: who.principal });
  const person = who.type === "user" || who.type === "group";
  const body: Json = { type: who.type, role: grant, ...(who.emailAddress ? { emailAddress: who.emailAddress } : {}), ...(who.domain ? { domain: who.domain } : {}) };
  return toPermission(apiPost("permissions.create", `files/${id}/permissions`, body, { fields: PERMISSION_FIELDS, sendNotificationEmail: person ? notify : undefined, emailMessage: person ? message : undefined }));
}

/**
 * List who has access to a file.
 * @param fileId File or folder id.
 * @returns Every permission (all pages).
 * @capability svc/google-drive.listPermissions { fileId }
 */
export function listPermissions(fileId: string): Permission[] {
  const id = idArg(fileId, "fileId");
  check("svc/google-drive.listPermissions", { fileId: id });
  const out: Permission[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 20; page++) {
    const body = apiGet("permissions.list", `files/${id}/permissions`, { fields: `nextPageToken,permissions(${PERMISSION_FIELDS})`, pageSize: 100, pageToken });
    if (!Array.isArray(body.permissions)) throw new DriveError("invalid_response", "Drive permissions.list answered without `permissions`", 200);
    for (const p of body.permissions) if (p && typeof p === "object") out.push(toPermission(p as Json));
    if (typeof body.nextPageToken !== "string" || body.nextPageToken === "") break;
    pageToken = body.nextPageToken;
  }
  return out;
}

/**
 * Remove one permission from a file (see `listPermissions` for ids).
 * @param fileId File or folder id.
 * @param permissionId Permission id.
 * @capability svc/google-drive.removePermission { fileId }
 */
export function removePermission(fileId: string, permissionId: string): void {
  const id = idArg(fileId, "fileId");
  const permission = idArg(permissionId, "permissionId");
  check("svc/google-drive.removePermission", { fileId: id });
  apiDelete("permissions.delete", `files/${id}/permissions/${permission}`);
}

/**
 * Move a file or folder to the trash (Drive empties it after 30 days; there is no permanent delete here).
 * @param fileId File or folder id.
 * @returns The trashed file.
 * @capability svc/google-drive.trashFile { fileId }
 */
export function trashFile(fileId: string): DriveFile {
  const id = idArg(fileId, "fileId");
  check("svc/google-drive.trashFile", { fileId: id });
  return toFile(apiPatch("files.update", `files/${id}`, { trashed: true }, { fields: FILE_FIELDS }));
}

/**
 * Bring a file or folder back from the trash.
 * @param fileId File or folder id.
 * @returns The restored file.
 * @capability svc/google-drive.restoreFile { fileId }
 */
export function restoreFile(fileId: string): DriveFile {
  const id = idArg(fileId, "fileId");
  check("svc/google-drive.restoreFile", { fileId: id });
  return toFile(apiPatch("files.update", `files/${id}`, { trashed: false }, { fields: FILE_FIELDS }));
}
