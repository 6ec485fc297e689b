// DOMException as WebIDL defines it: `name`, `message` and `code` are getters on the
// prototype (reading the instance's private state, so a program cannot make one report
// another name to trusted code), `code` is the legacy number of the names that have one
// (0 for the others), and the legacy constants (INDEX_SIZE_ERR ... DATA_CLONE_ERR) are on
// both the constructor and the prototype. Every web error the prelude raises is one of
// these (atob's InvalidCharacterError, an abort's AbortError, WebCrypto's errors).
//
// The class is made the first time a program reads the `DOMException` global or the prelude
// raises one (a lazy group, ./lazy-group.ts): its fifty constant definitions and accessor
// rewrites were about a tenth of the prelude's evaluation in every fresh context, and most
// runs never see a DOMException. It may be made after the program changed any built-in, so
// it uses only captured intrinsics, and every descriptor it defines has no prototype
// (ObjectDefineProperty copies it so).
import { Error_ as ErrorCtor, ObjectDefineProperty, ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectPrototypeHasOwnProperty, String_, TypeError_ } from './primordials';
import { interfaceName } from './idl';
import { lazyGroup, materialize, provide } from './lazy-group';

/** Legacy names with a code, in code order (code = index + 1), and their constants. */
const LEGACY: ReadonlyArray<readonly [string, string]> = [
  ['IndexSizeError', 'INDEX_SIZE_ERR'],
  ['DOMStringSizeError', 'DOMSTRING_SIZE_ERR'],
  ['HierarchyRequestError', 'HIERARCHY_REQUEST_ERR'],
  ['WrongDocumentError', 'WRONG_DOCUMENT_ERR'],
  ['InvalidCharacterError', 'INVALID_CHARACTER_ERR'],
  ['NoDataAllowedError', 'NO_DATA_ALLOWED_ERR'],
  ['NoModificationAllowedError', 'NO_MODIFICATION_ALLOWED_ERR'],
  ['NotFoundError', 'NOT_FOUND_ERR'],
  ['NotSupportedError', 'NOT_SUPPORTED_ERR'],
  ['InUseAttributeError', 'INUSE_ATTRIBUTE_ERR'],
  ['InvalidStateError', 'INVALID_STATE_ERR'],
  ['SyntaxError', 'SYNTAX_ERR'],
  ['InvalidModificationError', 'INVALID_MODIFICATION_ERR'],
  ['NamespaceError', 'NAMESPACE_ERR'],
  ['InvalidAccessError', 'INVALID_ACCESS_ERR'],
  ['ValidationError', 'VALIDATION_ERR'],
  ['TypeMismatchError', 'TYPE_MISMATCH_ERR'],
  ['SecurityError', 'SECURITY_ERR'],
  ['NetworkError', 'NETWORK_ERR'],
  ['AbortError', 'ABORT_ERR'],
  ['URLMismatchError', 'URL_MISMATCH_ERR'],
  ['QuotaExceededError', 'QUOTA_EXCEEDED_ERR'],
  ['TimeoutError', 'TIMEOUT_ERR'],
  ['InvalidNodeTypeError', 'INVALID_NODE_TYPE_ERR'],
  ['DataCloneError', 'DATA_CLONE_ERR'],
];

/** Brand check for trusted code: a DOMException the prelude (or a program) constructed. */
let hasBrand: (value: unknown) => boolean = () => false;

/** Makes the class, once per context (the group's evaluation). */
function makeDOMException() {
  const CODES: Record<string, number> = ObjectFreeze(
    (() => {
      const table: Record<string, number> = { __proto__: null } as unknown as Record<string, number>;
      for (let i = 0; i < LEGACY.length; i++) table[LEGACY[i][0]] = i + 1;
      return table;
    })(),
  );

  class DOMException extends ErrorCtor {
    readonly #name: string;
    readonly #message: string;
    static {
      hasBrand = (value) => value !== null && typeof value === 'object' && #name in value;
    }
    constructor(message: unknown = '', name: unknown = 'Error') {
      const text = String_(message);
      super(text);
      this.#message = text;
      this.#name = String_(name);
      // Error's constructor made `message` an own property; WebIDL keeps it on the prototype.
      delete (this as { message?: string }).message;
    }
    // @ts-expect-error: a getter where Error declares a field, as WebIDL specifies
    get name(): string {
      if (!hasBrand(this)) throw new TypeError_('DOMException.prototype.name: the receiver is not a DOMException');
      return this.#name;
    }
    // @ts-expect-error: likewise
    get message(): string {
      if (!hasBrand(this)) throw new TypeError_('DOMException.prototype.message: the receiver is not a DOMException');
      return this.#message;
    }
    get code(): number {
      if (!hasBrand(this)) throw new TypeError_('DOMException.prototype.code: the receiver is not a DOMException');
      return ObjectPrototypeHasOwnProperty(CODES, this.#name) ? CODES[this.#name] : 0;
    }
  }

  for (let i = 0; i < LEGACY.length; i++) {
    const constant = { value: i + 1, writable: false, enumerable: true, configurable: false };
    ObjectDefineProperty(DOMException, LEGACY[i][1], constant);
    ObjectDefineProperty(DOMException.prototype, LEGACY[i][1], constant);
  }
  const ACCESSORS = ['name', 'message', 'code'];
  for (let i = 0; i < ACCESSORS.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(DOMException.prototype, ACCESSORS[i])!;
    ObjectDefineProperty(DOMException.prototype, ACCESSORS[i], { get: descriptor.get, enumerable: true, configurable: true });
  }
  interfaceName(DOMException, 'DOMException');
  // The bundler may rename the class; the global constructor answers to its own name.
  if (DOMException.name !== 'DOMException') ObjectDefineProperty(DOMException, 'name', { value: 'DOMException', configurable: true });
  // Trusted code constructs it: its methods must stay ours.
  ObjectFreeze(DOMException.prototype);
  return ObjectFreeze(DOMException);
}

export type DOMExceptionClass = ReturnType<typeof makeDOMException>;
export type DOMException = InstanceType<DOMExceptionClass>;

/** The `DOMException` global's group: made by its first reader or the first error the prelude raises. */
export const domExceptionGroup = lazyGroup<DOMExceptionClass>(() => provide(domExceptionGroup, makeDOMException()));

/** A DOMException as `new DOMException(message, name)` makes it (the class made first if need be). */
export function newDOMException(message?: unknown, name?: unknown): DOMException {
  const DOMExceptionCtor = materialize(domExceptionGroup);
  return new DOMExceptionCtor(message, name);
}

export function isDOMException(value: unknown): value is DOMException {
  return hasBrand(value);
}
