// The normalised results of @svc/google-drive and the functions that build them from
// Drive's JSON.
import { DriveError, type Json } from "./client";

/** The `fields` of every file the Package returns. */
export const FILE_FIELDS = "id,name,mimeType,parents,size,createdTime,modifiedTime,webViewLink,trashed,starred,driveId,owners(emailAddress,displayName),lastModifyingUser(emailAddress,displayName)";
/** The `fields` of a file list page. */
export const LIST_FIELDS = `nextPageToken,incompleteSearch,files(${FILE_FIELDS})`;
/** The `fields` of a permission. */
export const PERMISSION_FIELDS = "id,type,role,emailAddress,domain,displayName,allowFileDiscovery,expirationTime,deleted";

export const FOLDER = "application/vnd.google-apps.folder";

/** A person as Drive names them. */
export interface DriveUser {
  emailAddress: string | null;
  displayName: string | null;
}

/** A file or folder, normalised. */
export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  /** True for folders. */
  folder: boolean;
  /** True for Google Docs, Sheets, Slides and other native types (export them; they have no size). */
  googleType: boolean;
  parents: string[];
  /** Bytes, or null for Google-native files and folders. */
  size: number | null;
  createdTime: string | null;
  modifiedTime: string | null;
  webViewLink: string | null;
  trashed: boolean;
  starred: boolean;
  /** The shared drive holding it, or null for My Drive. */
  driveId: string | null;
  owners: DriveUser[];
  lastModifyingUser: DriveUser | null;
}

/** A page of files. */
export interface FilePage {
  files: DriveFile[];
  nextPageToken: string | null;
  /** True when Drive could not search every corpus. */
  incompleteSearch: boolean;
}

/** A permission on a file. */
export interface Permission {
  id: string;
  /** `user`, `group`, `domain` or `anyone`. */
  type: string;
  /** `owner`, `organizer`, `fileOrganizer`, `writer`, `commenter` or `reader`. */
  role: string;
  emailAddress: string | null;
  domain: string | null;
  displayName: string | null;
  expirationTime: string | null;
}

/** A document's text. */
export interface FileText {
  fileId: string;
  name: string;
  mimeType: string;
  /** The export format for Google-native files (`text/plain`, `text/csv`), null when read as is. */
  exportedAs: string | null;
  text: string;
}

/** What `downloadFile` wrote. */
export interface DownloadedFile {
  fileId: string;
  name: string;
  /** Normalised absolute file-area path. */
  path: string;
  bytesWritten: number;
  contentType: string;
  /** The export format for Google-native files, else null. */
  exportedAs: string | null;
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => v !== null && typeof v === "object" && !Array.isArray(v)) : [];
}

function toUser(u: Json): DriveUser {
  return { emailAddress: str(u.emailAddress)?.toLowerCase() ?? null, displayName: str(u.displayName) };
}

export function toFile(f: Json): DriveFile {
  const id = str(f.id);
  if (id === null) throw new DriveError("invalid_response", "Drive answered with a file without `id`", 200);
  const mimeType = str(f.mimeType) ?? "application/octet-stream";
  const size = typeof f.size === "string" || typeof f.size === "number" ? Number(f.size) : NaN;
  return {
    id,
    name: str(f.name) ?? "",
    mimeType,
    folder: mimeType === FOLDER,
    googleType: mimeType.startsWith("application/vnd.google-apps."),
    parents: Array.isArray(f.parents) ? f.parents.filter((p): p is string => typeof p === "string") : [],
    size: Number.isFinite(size) ? size : null,
    createdTime: str(f.createdTime),
    modifiedTime: str(f.modifiedTime),
    webViewLink: str(f.webViewLink),
    trashed: f.trashed === true,
    starred: f.starred === true,
    driveId: str(f.driveId),
    owners: objects(f.owners).map(toUser),
    lastModifyingUser: f.lastModifyingUser && typeof f.lastModifyingUser === "object" ? toUser(f.lastModifyingUser as Json) : null,
  };
}

export function toFilePage(body: Json): FilePage {
  return { files: objects(body.files).map(toFile), nextPageToken: str(body.nextPageToken), incompleteSearch: body.incompleteSearch === true };
}

export function toPermission(p: Json): Permission {
  const id = str(p.id);
  if (id === null) throw new DriveError("invalid_response", "Drive answered with a permission without `id`", 200);
  return { id, type: str(p.type) ?? "user", role: str(p.role) ?? "reader", emailAddress: str(p.emailAddress)?.toLowerCase() ?? null, domain: str(p.domain), displayName: str(p.displayName), expirationTime: str(p.expirationTime) };
}

/** How each Google-native type reads as text. */
export const TEXT_EXPORTS: Record<string, string> = {
  "application/vnd.google-apps.document": "text/plain",
  "application/vnd.google-apps.spreadsheet": "text/csv",
  "application/vnd.google-apps.presentation": "text/plain",
  "application/vnd.google-apps.script": "application/vnd.google-apps.script+json",
};

/** The default download format of each Google-native type. */
export const FILE_EXPORTS: Record<string, string> = {
  "application/vnd.google-apps.document": "application/pdf",
  "application/vnd.google-apps.spreadsheet": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.google-apps.presentation": "application/pdf",
  "application/vnd.google-apps.drawing": "image/png",
};

/** Stored types read as text without export. */
export function isTextual(mimeType: string): boolean {
  return mimeType.startsWith("text/") || /^application\/(json|xml|javascript|x-yaml|yaml|sql|x-sh|csv|markdown|x-ndjson)$/.test(mimeType) || mimeType.endsWith("+json") || mimeType.endsWith("+xml");
}

const TYPES: Record<string, string> = {
  txt: "text/plain", md: "text/markdown", csv: "text/csv", html: "text/html", htm: "text/html", json: "application/json", xml: "application/xml",
  pdf: "application/pdf", zip: "application/zip", gz: "application/gzip", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif",
  svg: "image/svg+xml", webp: "image/webp", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** A content type guessed from a file name's extension (application/octet-stream otherwise). */
export function contentTypeFor(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return (dot >= 0 && TYPES[filename.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}
