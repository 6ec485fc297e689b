// DOMException, Event and EventTarget: as much as AbortSignal and programs written for
// the web platform need (listeners by type, once, dispatch in order).
import { ArrayPrototypePush, ArrayPrototypeSlice, ArrayPrototypeSplice, ReflectApply, SafeMap, MapPrototypeGet, MapPrototypeSet, StringCtor } from './primordials';
import { reportError } from './host';

// DOMException is the prelude's (../dom-exception.ts), shared by every web global.
import { DOMException } from '../dom-exception';
export { DOMException };

// Reached only from this module (a static block hands them out), never from programs.
let setTarget: (event: Event, target: EventTarget) => void;
let isStopped: (event: Event) => boolean;

export class Event {
  readonly #type: string;
  #target: EventTarget | null = null;
  #defaultPrevented = false;
  #stopped = false;
  readonly timeStamp: number;
  constructor(type: string, _init?: { bubbles?: boolean; cancelable?: boolean }) {
    if (arguments.length === 0) throw new TypeError("Event: the 'type' argument is required");
    this.#type = StringCtor(type);
    this.timeStamp = 0;
  }
  get type(): string {
    return this.#type;
  }
  get target(): EventTarget | null {
    return this.#target;
  }
  get currentTarget(): EventTarget | null {
    return this.#target;
  }
  get defaultPrevented(): boolean {
    return this.#defaultPrevented;
  }
  preventDefault(): void {
    this.#defaultPrevented = true;
  }
  stopImmediatePropagation(): void {
    this.#stopped = true;
  }
  stopPropagation(): void {}
  static {
    setTarget = (event, target) => {
      event.#target = target;
    };
    isStopped = (event) => event.#stopped;
  }
}

type Listener = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };
interface Entry {
  listener: Listener;
  once: boolean;
  removed: boolean;
}

export class EventTarget {
  readonly #listeners = new SafeMap<string, Entry[]>();
  addEventListener(type: string, listener: Listener | null, options?: boolean | { once?: boolean; signal?: unknown }): void {
    if (listener === null || listener === undefined) return;
    const key = StringCtor(type);
    let list = MapPrototypeGet(this.#listeners, key);
    if (list === undefined) {
      list = [];
      MapPrototypeSet(this.#listeners, key, list);
    }
    for (let i = 0; i < list.length; i++) if (list[i].listener === listener) return;
    const once = typeof options === 'object' && options !== null && options.once === true;
    ArrayPrototypePush(list, { listener, once, removed: false });
  }
  removeEventListener(type: string, listener: Listener | null): void {
    const list = MapPrototypeGet(this.#listeners, StringCtor(type));
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) {
      if (list[i].listener === listener) {
        list[i].removed = true;
        ArrayPrototypeSplice(list, i, 1);
        return;
      }
    }
  }
  dispatchEvent(event: Event): boolean {
    if (!(event instanceof Event)) throw new TypeError('dispatchEvent: the argument must be an Event');
    setTarget(event, this);
    const list = MapPrototypeGet(this.#listeners, event.type) as Entry[] | undefined;
    if (list === undefined) return !event.defaultPrevented;
    const snapshot = ArrayPrototypeSlice(list);
    for (let i = 0; i < snapshot.length; i++) {
      const entry = snapshot[i];
      if (entry.removed) continue;
      if (entry.once) this.removeEventListener(event.type, entry.listener);
      try {
        if (typeof entry.listener === 'function') ReflectApply(entry.listener, this, [event]);
        else ReflectApply(entry.listener.handleEvent, entry.listener, [event]);
      } catch (error) {
        reportError(error);
      }
      if (isStopped(event)) break;
    }
    return !event.defaultPrevented;
  }
}
