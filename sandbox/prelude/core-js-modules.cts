// The core-js modules that give programs the ES2024+ built-ins the engine lacks, by name, each
// evaluated on its own at the first use of a stand-in it replaces (./builtins.ts). Bundled on
// its own into one function the prelude calls the first time (scripts/build/prelude.mjs), so a fresh
// context makes none of their module wrappers until then; CommonJS, so the bundle needs no
// export helpers (they would read built-ins after the program ran).
module.exports = {
  'es.object.group-by': () => require('core-js/modules/es.object.group-by.js'),
  'es.map.group-by': () => require('core-js/modules/es.map.group-by.js'),
  'es.promise.with-resolvers': () => require('core-js/modules/es.promise.with-resolvers.js'),
  'es.promise.try': () => require('core-js/modules/es.promise.try.js'),
  'es.array.from-async': () => require('core-js/modules/es.array.from-async.js'),
  'es.regexp.escape': () => require('core-js/modules/es.regexp.escape.js'),
  'es.set.union.v2': () => require('core-js/modules/es.set.union.v2.js'),
  'es.set.intersection.v2': () => require('core-js/modules/es.set.intersection.v2.js'),
  'es.set.difference.v2': () => require('core-js/modules/es.set.difference.v2.js'),
  'es.set.symmetric-difference.v2': () => require('core-js/modules/es.set.symmetric-difference.v2.js'),
  'es.set.is-subset-of.v2': () => require('core-js/modules/es.set.is-subset-of.v2.js'),
  'es.set.is-superset-of.v2': () => require('core-js/modules/es.set.is-superset-of.v2.js'),
  'es.set.is-disjoint-from.v2': () => require('core-js/modules/es.set.is-disjoint-from.v2.js'),
  'es.iterator.constructor': () => require('core-js/modules/es.iterator.constructor.js'),
  'es.iterator.from': () => require('core-js/modules/es.iterator.from.js'),
  'es.iterator.drop': () => require('core-js/modules/es.iterator.drop.js'),
  'es.iterator.every': () => require('core-js/modules/es.iterator.every.js'),
  'es.iterator.filter': () => require('core-js/modules/es.iterator.filter.js'),
  'es.iterator.find': () => require('core-js/modules/es.iterator.find.js'),
  'es.iterator.flat-map': () => require('core-js/modules/es.iterator.flat-map.js'),
  'es.iterator.for-each': () => require('core-js/modules/es.iterator.for-each.js'),
  'es.iterator.map': () => require('core-js/modules/es.iterator.map.js'),
  'es.iterator.reduce': () => require('core-js/modules/es.iterator.reduce.js'),
  'es.iterator.some': () => require('core-js/modules/es.iterator.some.js'),
  'es.iterator.take': () => require('core-js/modules/es.iterator.take.js'),
  'es.iterator.to-array': () => require('core-js/modules/es.iterator.to-array.js'),
};
