// Bodies of Request and Response: what a BodyInit becomes (bytes or a stream, and the
// content type it implies), and reading it once as text, JSON, bytes, a Blob or FormData.
import { native } from '../native';
import { base64ToBytes } from '../encoding';
import { blobBytes, Blob, File, FormData, formEntries, makeBlob } from './blob';
import { bufferSourceCopy, concatBytes, toArrayBuffer, utf8Decode, utf8Encode } from './bytes';
import { ArrayPrototypePush, JSONParse, JSONStringify, RegExpPrototypeExec, PromisePrototypeThen, PromiseReject, PromiseResolve, ReflectApply, StringCtor, StringPrototypeIndexOf, StringPrototypeSlice, StringPrototypeSplit, StringPrototypeToLowerCase, StringPrototypeTrim, TypedArrayPrototypeSlice, Uint8ArrayCtor } from './primordials';
import { structuredClone } from '../clone';
import { drainNow, isDisturbed, isLocked, lockForever, readableRecord, readAll, ReadableStream, streamOfBytes, teeStream } from './streams';
import type { Headers } from './headers';
import { ObjectDefineProperty, ObjectGetOwnPropertyDescriptors, SafeWeakMap } from '../primordials';
import { materialize } from '../lazy-group';
import { urlGroup } from './url-group';

const { URLSearchParams } = materialize(urlGroup);
const searchParamsToString = URLSearchParams.prototype.toString;
const searchParamsForEach = URLSearchParams.prototype.forEach;

/** A body: bytes (from a string, buffer, Blob, form ...), a stream, or none. */
export interface BodyState {
  source: Uint8Array | ReadableStream | null;
  used: boolean;
}

export interface Extracted {
  source: Uint8Array | ReadableStream | null;
  type: string | null;
}

function boundary(): string {
  const bytes = base64ToBytes(native.random(12) as string);
  let hex = '';
  for (let i = 0; i < bytes.length; i++) hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
  return `----svc-form-${hex}`;
}

function quoted(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    out += c === '"' ? '%22' : c === '\r' ? '%0D' : c === '\n' ? '%0A' : c;
  }
  return out;
}

function multipart(form: FormData): Extracted {
  const mark = boundary();
  const parts: Uint8Array[] = [];
  const entries = formEntries(form);
  for (let i = 0; i < entries.length; i++) {
    const [name, value] = entries[i];
    if (typeof value === 'string') {
      ArrayPrototypePush(parts, utf8Encode(`--${mark}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`));
    } else {
      const type = value.type || 'application/octet-stream';
      ArrayPrototypePush(parts, utf8Encode(`--${mark}\r\nContent-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(value.name)}"\r\nContent-Type: ${type}\r\n\r\n`));
      ArrayPrototypePush(parts, blobBytes(value));
      ArrayPrototypePush(parts, utf8Encode('\r\n'));
    }
  }
  ArrayPrototypePush(parts, utf8Encode(`--${mark}--\r\n`));
  return { source: concatBytes(parts), type: `multipart/form-data; boundary=${mark}` };
}

/** What a BodyInit becomes (Fetch standard "extract a body"). */
export function extractBody(init: unknown): Extracted {
  if (init === undefined || init === null) return { source: null, type: null };
  if (typeof init === 'string') return { source: utf8Encode(init), type: 'text/plain;charset=UTF-8' };
  const stream = readableRecord(init);
  if (stream !== null) {
    if (isLocked(stream) || isDisturbed(init as ReadableStream)) throw new TypeError('the body stream is locked or has been read');
    return { source: init as ReadableStream, type: null };
  }
  if (init instanceof Blob) return { source: blobBytes(init), type: init.type === '' ? null : init.type };
  if (init instanceof FormData) return multipart(init);
  if (init instanceof URLSearchParams) return { source: utf8Encode(ReflectApply(searchParamsToString, init, []) as string), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  const bytes = bufferSourceCopy(init);
  if (bytes !== null) return { source: bytes, type: null };
  return { source: utf8Encode(StringCtor(init)), type: 'text/plain;charset=UTF-8' };
}

function isStream(source: BodyState['source']): source is ReadableStream {
  return source !== null && readableRecord(source) !== null;
}

export function bodyUsed(state: BodyState): boolean {
  return state.used || (isStream(state.source) && isDisturbed(state.source));
}

/** Whether the body can no longer be read or cloned: used, or its stream locked to a reader. */
export function bodyUnusable(state: BodyState): boolean {
  return bodyUsed(state) || (isStream(state.source) && isLocked(readableRecord(state.source)!));
}

/** The body for a clone: a stream is teed (this one keeps one branch), bytes are shared (read as copies). */
export function cloneBody(state: BodyState, what: string): BodyState {
  if (bodyUnusable(state)) throw new TypeError(`${what}: the body has already been read or is locked to a reader`);
  const source = state.source;
  if (!isStream(source)) return { source, used: false };
  const branches = teeStream(source, (chunk) => structuredClone(chunk));
  state.source = branches[0];
  return { source: branches[1], used: false };
}

/** The body as a stream (made once from bytes), or null. */
export function bodyStream(state: BodyState): ReadableStream | null {
  const source = state.source;
  if (source === null) return null;
  if (isStream(source)) return source;
  const stream = streamOfBytes(source);
  state.source = stream;
  if (state.used) lockForever(stream);
  return stream;
}

/** All the bytes now, for fetch (a stream must already be closed). */
export function bodyBytesNow(state: BodyState, what: string): Uint8Array | null {
  if (bodyUsed(state)) throw new TypeError(`${what}: the body has already been read`);
  const source = state.source;
  if (source === null) return null;
  state.used = true;
  if (!isStream(source)) return source;
  const chunks = drainNow(source);
  if (chunks !== null) lockForever(source);
  if (chunks === null) throw new TypeError(`${what}: a ReadableStream body must be complete (closed) before the request is sent`);
  return concatChunks(chunks);
}

function chunkBytes(chunk: unknown): Uint8Array {
  const bytes = bufferSourceCopy(chunk);
  if (bytes !== null) return bytes;
  if (typeof chunk === 'string') return utf8Encode(chunk);
  throw new TypeError('a body stream chunk must be a Uint8Array (or a string)');
}

function concatChunks(chunks: unknown[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < chunks.length; i++) ArrayPrototypePush(parts, chunkBytes(chunks[i]));
  return concatBytes(parts);
}

/** Reads the whole body once. */
export function consume(state: BodyState): Promise<Uint8Array> {
  if (bodyUnusable(state)) return PromiseReject(new TypeError('the body has already been read (bodyUsed is true) or is locked to a reader; clone() before reading twice'));
  const source = state.source;
  // A null body reads as empty and stays unused (Fetch "consume body").
  if (source === null) return PromiseResolve(new Uint8ArrayCtor(0));
  state.used = true;
  if (!isStream(source)) return PromiseResolve(TypedArrayPrototypeSlice(source));
  const parts: Uint8Array[] = [];
  return PromisePrototypeThen(
    readAll(source, (chunk) => ArrayPrototypePush(parts, chunkBytes(chunk))),
    () => concatBytes(parts),
  );
}

export const asText = (state: BodyState): Promise<string> => PromisePrototypeThen(consume(state), utf8Decode);
export const asJson = (state: BodyState): Promise<unknown> => PromisePrototypeThen(consume(state), (bytes: Uint8Array) => JSONParse(utf8Decode(bytes)));
export const asArrayBuffer = (state: BodyState): Promise<ArrayBuffer> => PromisePrototypeThen(consume(state), toArrayBuffer);
export const asBytes = (state: BodyState): Promise<Uint8Array> => consume(state);
export const asBlob = (state: BodyState, type: string | null): Promise<Blob> => PromisePrototypeThen(consume(state), (bytes: Uint8Array) => makeBlob(bytes, type ?? ''));

/** FormData from an urlencoded or multipart body (fields; file parts become Files). */
export function asFormData(state: BodyState, type: string | null): Promise<FormData> {
  const essence = StringPrototypeToLowerCase(StringPrototypeTrim(StringPrototypeSplit(type ?? '', ';')[0]));
  // The body is read first (a stream's own error wins over a wrong content type).
  return PromisePrototypeThen(consume(state), (bytes: Uint8Array) => {
    if (essence !== 'application/x-www-form-urlencoded' && essence !== 'multipart/form-data') {
      throw new TypeError(`formData(): the content type must be application/x-www-form-urlencoded or multipart/form-data, not ${JSONStringify(type ?? '')}`);
    }
    const form = new FormData();
    const text = utf8Decode(bytes);
    if (essence === 'application/x-www-form-urlencoded') {
      ReflectApply(searchParamsForEach, new URLSearchParams(text), [(value: string, name: string) => form.append(name, value)]);
      return form;
    }
    const match = RegExpPrototypeExec(/boundary="?([^";]+)"?/i, type ?? '');
    if (!match) throw new TypeError('formData(): the multipart content type has no boundary');
    const sections = StringPrototypeSplit(text, `--${match[1]}`);
    for (let i = 1; i < sections.length; i++) {
      const section = sections[i];
      if (StringPrototypeSlice(section, 0, 2) === '--') break;
      const split = StringPrototypeIndexOf(section, '\r\n\r\n');
      if (split < 0) throw new TypeError('formData(): a multipart section has no header end');
      const head = StringPrototypeSlice(section, 2, split);
      let value = StringPrototypeSlice(section, split + 4);
      if (StringPrototypeSlice(value, -2) === '\r\n') value = StringPrototypeSlice(value, 0, -2);
      const name = RegExpPrototypeExec(/[;\s]name="([^"]*)"/i, head);
      if (!name) throw new TypeError('formData(): a multipart section has no field name');
      const filename = RegExpPrototypeExec(/filename="([^"]*)"/i, head);
      const contentType = RegExpPrototypeExec(/content-type:\s*([^\r\n]+)/i, head);
      if (filename) form.append(name[1], new File([value], filename[1], { type: contentType ? contentType[1] : '' }));
      else form.append(name[1], value);
    }
    return form;
  });
}

// --- the Body mixin (Fetch standard): written once, installed on Request and Response ---
interface BodyOwner {
  /** 'Request' or 'Response': a method of one is not a method of the other (WebIDL brand checks). */
  kind: string;
  state: () => BodyState;
  contentType: () => string | null;
}
const owners = new SafeWeakMap<object, BodyOwner>();

/** Registers an object's body (its Request or Response constructor calls this). */
export function attachBody(target: object, owner: BodyOwner): void {
  owners.set(target, owner);
}

function ownerOf(self: unknown, what: string, kind: string): BodyOwner {
  const owner = typeof self === 'object' && self !== null ? owners.get(self) : undefined;
  if (owner === undefined || owner.kind !== kind) throw new TypeError(`${what}: illegal invocation (not a ${kind})`);
  return owner;
}

/** The members installBodyMixin puts on a prototype, for the classes' types. */
export interface BodyMembers {
  readonly body: ReadableStream | null;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  blob(): Promise<Blob>;
  formData(): Promise<FormData>;
}

/** Defines body, bodyUsed, arrayBuffer, blob, bytes, formData, json and text on a prototype. */
export function installBodyMixin(prototype: object, name: string): void {
  const reader = <T>(method: string, read: (owner: BodyOwner) => Promise<T>) =>
    ({
      [method](this: unknown): Promise<T> {
        let owner: BodyOwner;
        try {
          owner = ownerOf(this, `${name}.${method}`, name);
        } catch (error) {
          return PromiseReject(error);
        }
        return read(owner);
      },
    })[method];
  const methods: Record<string, (this: unknown) => Promise<unknown>> = {
    arrayBuffer: reader('arrayBuffer', (owner) => asArrayBuffer(owner.state())),
    blob: reader('blob', (owner) => asBlob(owner.state(), owner.contentType())),
    bytes: reader('bytes', (owner) => asBytes(owner.state())),
    formData: reader('formData', (owner) => asFormData(owner.state(), owner.contentType())),
    json: reader('json', (owner) => asJson(owner.state())),
    text: reader('text', (owner) => asText(owner.state())),
  };
  const names = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'];
  for (let i = 0; i < names.length; i++) ObjectDefineProperty(prototype, names[i], { value: methods[names[i]], writable: true, enumerable: true, configurable: true });
  const getters = ObjectGetOwnPropertyDescriptors({
    get body(): ReadableStream | null {
      return bodyStream(ownerOf(this, `${name}.body`, name).state());
    },
    get bodyUsed(): boolean {
      return bodyUsed(ownerOf(this, `${name}.bodyUsed`, name).state());
    },
  });
  ObjectDefineProperty(prototype, 'body', { get: getters.body.get, enumerable: true, configurable: true });
  ObjectDefineProperty(prototype, 'bodyUsed', { get: getters.bodyUsed.get, enumerable: true, configurable: true });
}
