// Program source for the tests that poison built-ins before the prelude's lazy code first
// runs (lazy-globals, web-lazy): getters named like descriptor fields on Object.prototype,
// each read recorded in `reads`; `trap(owner, key, label)`, which wraps a method so each call
// is recorded in `calls`; and `unpoison()`, which puts all of it back.
export const POISONING = `
    const reads = [];
    const calls = [];
    const fields = ['get', 'set', 'value', 'writable', 'enumerable', 'configurable'];
    for (let i = 0; i < fields.length; i++) {
      const key = fields[i];
      Object.defineProperty(Object.prototype, key, { __proto__: null, get() { reads[reads.length] = key; return undefined; }, configurable: true });
    }
    const apply = Reflect.apply;
    const realDefine = Object.defineProperty;
    const restore = [];
    const trap = (owner, key, label) => {
      const original = owner[key];
      restore[restore.length] = [owner, key, original];
      realDefine(owner, key, { __proto__: null, value: function (...args) { calls[calls.length] = label; return apply(original, this, args); }, writable: true, configurable: true });
    };
    const unpoison = () => {
      for (let i = restore.length - 1; i >= 0; i--) realDefine(restore[i][0], restore[i][1], { __proto__: null, value: restore[i][2], writable: true, configurable: true });
      for (let i = 0; i < fields.length; i++) delete Object.prototype[fields[i]];
    };`;
