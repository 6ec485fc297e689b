// Blob, File and FormData (text fields and files held in memory).
import { JSONStringify, ArrayPrototypePush, DateNow, MathMax, MathMin, NumberCtor, NumberIsFinite, PromiseResolve, ReflectApply, RegExpPrototypeTest, StringCtor, StringPrototypeToLowerCase, SymbolIterator, TypedArrayPrototypeSlice } from './primordials';
import { bufferSourceCopy, concatBytes, toArrayBuffer, utf8Decode, utf8Encode } from './bytes';
import { iterate, listOf } from './headers';
import { streamOfBytes, type ReadableStream } from './streams';
import { interfaceName } from '../idl';

function typeOf(value: unknown): string {
  if (value === undefined) return '';
  const text = StringCtor(value);
  return RegExpPrototypeTest(/^[\x20-\x7e]*$/, text) ? StringPrototypeToLowerCase(text) : '';
}

function clampIndex(value: unknown, size: number, fallback: number): number {
  if (value === undefined) return fallback;
  let n = NumberCtor(value);
  if (!NumberIsFinite(n)) n = n > 0 ? size : 0;
  n = n < 0 ? n + size : n;
  return MathMax(0, MathMin(size, n < 0 ? 0 : n - (n % 1)));
}

export let blobBytes: (blob: Blob) => Uint8Array;
export let makeBlob: (bytes: Uint8Array, type: string) => Blob;
let setBlobBytes: (blob: Blob, bytes: Uint8Array) => void;
export let isBlob: (value: unknown) => value is Blob;
export let isFile: (value: unknown) => value is File;
export let makeFile: (bytes: Uint8Array, name: string, type: string, lastModified: number) => File;
export let formEntries: (form: FormData) => Array<[string, FormDataValue]>;

/** Line endings of a string part made native (LF here), for endings: 'native'. */
function nativeEndings(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r') {
      out += '\n';
      if (text[i + 1] === '\n') i++;
    } else out += c;
  }
  return out;
}

export class Blob {
  #bytes: Uint8Array;
  #type: string;
  // Defaults keep Blob.length 0, as WebIDL's optional arguments.
  constructor(parts: unknown = undefined, options: { type?: string; endings?: string } | undefined = undefined) {
    const chunks: Uint8Array[] = [];
    if (parts !== undefined && (typeof parts !== 'object' || parts === null) && typeof parts !== 'function') throw new TypeError('Blob: parts must be a sequence of strings, BufferSources or Blobs');
    const items = parts === undefined ? [] : listOf(parts, 'Blob parts');
    if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') throw new TypeError('Blob: options must be an object');
    // Dictionary members in the standard's (alphabetical) order.
    const endingsValue = options === undefined || options === null ? undefined : options.endings;
    const endings = endingsValue === undefined ? 'transparent' : StringCtor(endingsValue);
    if (endings !== 'transparent' && endings !== 'native') throw new TypeError(`Blob: endings must be "transparent" or "native", not ${JSONStringify(endings)}`);
    const typeValue = options === undefined || options === null ? undefined : options.type;
    const type = typeValue === undefined ? '' : StringCtor(typeValue);
    for (let i = 0; i < items.length; i++) {
      const part = items[i];
      if (typeof part === 'object' && part !== null && #bytes in part) ArrayPrototypePush(chunks, (part as Blob).#bytes);
      else {
        const copied = bufferSourceCopy(part);
        if (copied !== null) ArrayPrototypePush(chunks, copied);
        else {
          const text = StringCtor(part);
          ArrayPrototypePush(chunks, utf8Encode(endings === 'native' ? nativeEndings(text) : text));
        }
      }
    }
    this.#bytes = concatBytes(chunks);
    this.#type = typeOf(type);
  }
  get size(): number {
    return this.#bytes.length;
  }
  get type(): string {
    return this.#type;
  }
  text(): Promise<string> {
    return PromiseResolve(utf8Decode(this.#bytes));
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return PromiseResolve(toArrayBuffer(this.#bytes));
  }
  bytes(): Promise<Uint8Array> {
    return PromiseResolve(TypedArrayPrototypeSlice(this.#bytes));
  }
  slice(start?: number, end?: number, contentType?: string): Blob {
    const size = this.#bytes.length;
    const from = clampIndex(start, size, 0);
    const to = clampIndex(end, size, size);
    const blob = emptyBlob();
    blob.#bytes = TypedArrayPrototypeSlice(this.#bytes, from, MathMax(from, to));
    blob.#type = typeOf(contentType);
    return blob;
  }
  stream(): ReadableStream {
    return streamOfBytes(TypedArrayPrototypeSlice(this.#bytes));
  }
  static {
    blobBytes = (blob) => blob.#bytes;
    setBlobBytes = (blob, bytes) => {
      blob.#bytes = bytes;
    };
    isBlob = (value): value is Blob => typeof value === 'object' && value !== null && #bytes in value;
    makeBlob = (bytes, type) => {
      const blob = emptyBlob();
      blob.#bytes = bytes;
      blob.#type = typeOf(type);
      return blob;
    };
  }
}
interfaceName(Blob, 'Blob');


// Outside the class body: a self-reference there makes the bundler rename the class (`_Blob`).
function emptyBlob(): Blob {
  return new Blob();
}

export class File extends Blob {
  readonly #name: string;
  readonly #lastModified: number;
  // The default keeps File.length 2 (parts and name are required).
  constructor(parts: unknown, name: string, options: { type?: string; endings?: string; lastModified?: number } | undefined = undefined) {
    if (arguments.length < 2) throw new TypeError('File: pass the parts and a file name');
    super(parts, options);
    this.#name = StringCtor(name);
    const modified = options === undefined || options === null ? undefined : options.lastModified;
    // WebIDL long long: whole milliseconds, NaN as 0.
    const value = modified === undefined ? DateNow() : NumberCtor(modified);
    this.#lastModified = NumberIsFinite(value) ? value - (value % 1) + 0 : 0;
  }
  get name(): string {
    return this.#name;
  }
  get lastModified(): number {
    return this.#lastModified;
  }
  static {
    isFile = (value): value is File => typeof value === 'object' && value !== null && #name in value;
  }
}
interfaceName(File, 'File');

// Outside the class body: a self-reference there makes the bundler rename the class (`_File`).
makeFile = (bytes, name, type, lastModified) => {
  const file = new File(undefined, name, { type, lastModified });
  setBlobBytes(file, bytes);
  return file;
};

export type FormDataValue = string | File;

function entryValue(value: unknown, filename: unknown, fn: string): FormDataValue {
  if (value instanceof Blob) {
    const name = filename !== undefined ? StringCtor(filename) : value instanceof File ? value.name : 'blob';
    if (value instanceof File && filename === undefined) return value;
    return new File([value], name, { type: value.type });
  }
  if (filename !== undefined) throw new TypeError(`FormData.${fn}: a file name goes only with a Blob value`);
  return StringCtor(value);
}

export class FormData {
  #entries: Array<[string, FormDataValue]> = [];
  constructor(form?: unknown) {
    if (form !== undefined) throw new TypeError('FormData: there are no HTML forms in svc; construct it empty and append fields');
  }
  append(name: string, value: unknown, filename?: string): void {
    if (arguments.length < 2) throw new TypeError('FormData.append: pass a name and a value');
    ArrayPrototypePush(this.#entries, [StringCtor(name), entryValue(value, filename, 'append')]);
  }
  set(name: string, value: unknown, filename?: string): void {
    if (arguments.length < 2) throw new TypeError('FormData.set: pass a name and a value');
    const key = StringCtor(name);
    const entry: [string, FormDataValue] = [key, entryValue(value, filename, 'set')];
    const out: Array<[string, FormDataValue]> = [];
    let placed = false;
    for (let i = 0; i < this.#entries.length; i++) {
      if (this.#entries[i][0] !== key) ArrayPrototypePush(out, this.#entries[i]);
      else if (!placed) {
        ArrayPrototypePush(out, entry);
        placed = true;
      }
    }
    if (!placed) ArrayPrototypePush(out, entry);
    this.#entries = out;
  }
  delete(name: string): void {
    const key = StringCtor(name);
    const out: Array<[string, FormDataValue]> = [];
    for (let i = 0; i < this.#entries.length; i++) if (this.#entries[i][0] !== key) ArrayPrototypePush(out, this.#entries[i]);
    this.#entries = out;
  }
  get(name: string): FormDataValue | null {
    const key = StringCtor(name);
    for (let i = 0; i < this.#entries.length; i++) if (this.#entries[i][0] === key) return this.#entries[i][1];
    return null;
  }
  getAll(name: string): FormDataValue[] {
    const key = StringCtor(name);
    const out: FormDataValue[] = [];
    for (let i = 0; i < this.#entries.length; i++) if (this.#entries[i][0] === key) ArrayPrototypePush(out, this.#entries[i][1]);
    return out;
  }
  has(name: string): boolean {
    return this.get(name) !== null;
  }
  #snapshot(pick: number): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < this.#entries.length; i++) ArrayPrototypePush(out, pick < 0 ? [this.#entries[i][0], this.#entries[i][1]] : this.#entries[i][pick]);
    return out;
  }
  entries(): IterableIterator<[string, FormDataValue]> {
    return iterate(this.#snapshot(-1)) as IterableIterator<[string, FormDataValue]>;
  }
  keys(): IterableIterator<string> {
    return iterate(this.#snapshot(0)) as IterableIterator<string>;
  }
  values(): IterableIterator<FormDataValue> {
    return iterate(this.#snapshot(1)) as IterableIterator<FormDataValue>;
  }
  forEach(callback: (value: FormDataValue, name: string, form: FormData) => void, thisArg?: unknown): void {
    const entries = this.#snapshot(-1) as Array<[string, FormDataValue]>;
    for (let i = 0; i < entries.length; i++) ReflectApply(callback, thisArg, [entries[i][1], entries[i][0], this]);
  }
  [SymbolIterator](): IterableIterator<[string, FormDataValue]> {
    return this.entries();
  }
  static {
    formEntries = (form) => form.#entries;
  }
}
interfaceName(FormData, 'FormData');

