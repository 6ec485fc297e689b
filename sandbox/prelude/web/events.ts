// DOMException (Event, EventTarget and the other events are in ./event.ts).
import { ObjectPrototypeHasOwnProperty, ErrorCtor, ObjectDefineProperty, StringCtor } from './primordials';

const CODES: Record<string, number> = { IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12, InvalidAccessError: 15, TypeMismatchError: 17, AbortError: 20, TimeoutError: 23, DataCloneError: 25 };

export class DOMException extends ErrorCtor {
  readonly #name: string;
  constructor(message = '', name = 'Error') {
    super(StringCtor(message));
    this.#name = StringCtor(name);
    ObjectDefineProperty(this, 'name', { value: this.#name, writable: true, configurable: true, enumerable: false });
  }
  get code(): number {
    return ObjectPrototypeHasOwnProperty(CODES, this.#name) ? CODES[this.#name] : 0;
  }
}
