// FileReader and ProgressEvent per the File API: a read runs as a task (a zero-delay timer),
// then fires loadstart, progress, load (or error/abort) and loadend, each also to the
// matching on<event> handler.
import { ObjectDefineProperty, ReflectApply, StringCtor } from './primordials';
import { Event, EventTarget, type EventInit } from './event';
import { blobBytes, isBlob } from './blob';
import { newDOMException, type DOMException } from '../dom-exception';
import { bytesToBase64 } from '../encoding';
import { materialize } from '../lazy-group';
import { textGroup } from './lazy';
import type { TextDecoder } from './text';
import { toArrayBuffer } from './bytes';
import { StringFromCharCode } from '../primordials';
import { cancel, schedule } from './timers';
import { interfaceName } from '../idl';

export class ProgressEvent extends Event {
  readonly #lengthComputable: boolean;
  readonly #loaded: number;
  readonly #total: number;
  constructor(type: string, init: (EventInit & { lengthComputable?: boolean; loaded?: number; total?: number }) | undefined = undefined) {
    if (arguments.length === 0) throw new TypeError("ProgressEvent: the 'type' argument is required");
    super(type, init);
    this.#lengthComputable = init !== undefined && init !== null && !!init.lengthComputable;
    this.#loaded = init === undefined || init === null || init.loaded === undefined ? 0 : +init.loaded;
    this.#total = init === undefined || init === null || init.total === undefined ? 0 : +init.total;
  }
  get lengthComputable(): boolean {
    return this.#lengthComputable;
  }
  get loaded(): number {
    return this.#loaded;
  }
  get total(): number {
    return this.#total;
  }
}
interfaceName(ProgressEvent, 'ProgressEvent');

const EMPTY = 0;
const LOADING = 1;
const DONE = 2;
const dispatch = EventTarget.prototype.dispatchEvent;
const HANDLERS = ['onloadstart', 'onprogress', 'onload', 'onabort', 'onerror', 'onloadend'];

type Kind = 'arrayBuffer' | 'binaryString' | 'text' | 'dataURL';

function binaryString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += StringFromCharCode(bytes[i]);
  return out;
}

function progress(type: string, loaded: number, total: number): ProgressEvent {
  return new ProgressEvent(type, { lengthComputable: true, loaded, total });
}

let handlersOf: (reader: FileReader) => Record<string, ((event: Event) => unknown) | null>;

export class FileReader extends EventTarget {
  #state = EMPTY;
  #result: string | ArrayBuffer | null = null;
  #error: DOMException | null = null;
  #timer = -1;
  #generation = 0;
  readonly #handlers: Record<string, ((event: Event) => unknown) | null> = { onloadstart: null, onprogress: null, onload: null, onabort: null, onerror: null, onloadend: null };

  get readyState(): number {
    return this.#state;
  }
  get result(): string | ArrayBuffer | null {
    return this.#result;
  }
  get error(): DOMException | null {
    return this.#error;
  }
  readAsArrayBuffer(blob: Blob): void {
    this.#read(blob, 'arrayBuffer', 'readAsArrayBuffer');
  }
  readAsBinaryString(blob: Blob): void {
    this.#read(blob, 'binaryString', 'readAsBinaryString');
  }
  readAsText(blob: Blob, encoding: string | undefined = undefined): void {
    this.#read(blob, 'text', 'readAsText', encoding);
  }
  readAsDataURL(blob: Blob): void {
    this.#read(blob, 'dataURL', 'readAsDataURL');
  }
  abort(): void {
    if (this.#state === EMPTY || this.#state === DONE) {
      this.#result = null;
      return;
    }
    if (this.#timer >= 0) cancel(this.#timer);
    this.#timer = -1;
    this.#generation++;
    this.#state = DONE;
    this.#result = null;
    this.#fire(progress('abort', 0, 0));
    if (this.#state !== LOADING) this.#fire(progress('loadend', 0, 0));
  }

  #fire(event: Event): void {
    const handler = this.#handlers[`on${event.type}`];
    if (typeof handler === 'function') ReflectApply(handler, this, [event]);
    ReflectApply(dispatch, this, [event]);
  }

  #read(blob: Blob, kind: Kind, method: string, encoding?: string): void {
    if (!isBlob(blob)) throw new TypeError(`FileReader.${method}: the argument must be a Blob`);
    if (this.#state === LOADING) throw newDOMException(`FileReader.${method}: a read is already in progress`, 'InvalidStateError');
    this.#state = LOADING;
    this.#result = null;
    this.#error = null;
    const generation = ++this.#generation;
    const bytes = blobBytes(blob);
    const type = blob.type;
    const label = encoding === undefined ? undefined : StringCtor(encoding);
    this.#timer = schedule(
      () => {
        this.#timer = -1;
        if (generation !== this.#generation) return;
        const total = bytes.length;
        this.#fire(progress('loadstart', 0, total));
        if (generation !== this.#generation) return;
        let result: string | ArrayBuffer;
        try {
          result = kind === 'arrayBuffer' ? toArrayBuffer(bytes)
            : kind === 'binaryString' ? binaryString(bytes)
            : kind === 'dataURL' ? `data:${type === '' ? 'application/octet-stream' : type};base64,${bytesToBase64(bytes)}`
            : (ReflectApply(materialize(textGroup).decode, textDecoder(label), [bytes]) as string);
        } catch (error) {
          this.#state = DONE;
          this.#error = newDOMException(`FileReader.${method}: the blob could not be read (${StringCtor((error as Error).message)})`, 'NotReadableError');
          this.#fire(progress('error', 0, total));
          if (this.#state !== LOADING) this.#fire(progress('loadend', 0, total));
          return;
        }
        this.#fire(progress('progress', total, total));
        if (generation !== this.#generation) return;
        this.#state = DONE;
        this.#result = result;
        this.#fire(progress('load', total, total));
        if (this.#state !== LOADING) this.#fire(progress('loadend', total, total));
      },
      0,
      [],
      false,
    );
  }
  static readonly EMPTY = EMPTY;
  static readonly LOADING = LOADING;
  static readonly DONE = DONE;
  static {
    for (let i = 0; i < HANDLERS.length; i++) {
      const name = HANDLERS[i];
      ObjectDefineProperty(this.prototype, name, {
        get(this: FileReader) {
          return handlersOf(this)[name];
        },
        set(this: FileReader, value: unknown) {
          handlersOf(this)[name] = typeof value === 'function' ? (value as (event: Event) => unknown) : null;
        },
        enumerable: true,
        configurable: true,
      });
    }
    handlersOf = (reader) => reader.#handlers;
  }
}
interfaceName(FileReader, 'FileReader');
const CONSTANTS: Array<[string, number]> = [['EMPTY', EMPTY], ['LOADING', LOADING], ['DONE', DONE]];
for (let i = 0; i < CONSTANTS.length; i++) ObjectDefineProperty(FileReader.prototype, CONSTANTS[i][0], { value: CONSTANTS[i][1], enumerable: true });

/** A decoder for readAsText's label (an unknown label falls back to UTF-8, as the File API says). */
function textDecoder(label: string | undefined): object {
  if (label !== undefined) {
    try {
      return new (materialize(textGroup).TextDecoder)(label);
    } catch {
      // unknown label: UTF-8
    }
  }
  return new (materialize(textGroup).TextDecoder)();
}
