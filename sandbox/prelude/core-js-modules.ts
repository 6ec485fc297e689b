// The core-js modules that give programs the ES2024+ built-ins the engine lacks (./builtins.ts
// lists the stand-ins they replace). Bundled on its own into one function the prelude calls
// at the first use of a stand-in (scripts/build.mjs), so a fresh context makes none of
// their module wrappers until then. Evaluated in this order.
require('core-js/modules/es.object.group-by.js');
require('core-js/modules/es.map.group-by.js');
require('core-js/modules/es.promise.with-resolvers.js');
require('core-js/modules/es.promise.try.js');
require('core-js/modules/es.array.from-async.js');
require('core-js/modules/es.regexp.escape.js');
require('core-js/modules/es.set.union.v2.js');
require('core-js/modules/es.set.intersection.v2.js');
require('core-js/modules/es.set.difference.v2.js');
require('core-js/modules/es.set.symmetric-difference.v2.js');
require('core-js/modules/es.set.is-subset-of.v2.js');
require('core-js/modules/es.set.is-superset-of.v2.js');
require('core-js/modules/es.set.is-disjoint-from.v2.js');
require('core-js/modules/es.iterator.constructor.js');
require('core-js/modules/es.iterator.from.js');
require('core-js/modules/es.iterator.drop.js');
require('core-js/modules/es.iterator.every.js');
require('core-js/modules/es.iterator.filter.js');
require('core-js/modules/es.iterator.find.js');
require('core-js/modules/es.iterator.flat-map.js');
require('core-js/modules/es.iterator.for-each.js');
require('core-js/modules/es.iterator.map.js');
require('core-js/modules/es.iterator.reduce.js');
require('core-js/modules/es.iterator.some.js');
require('core-js/modules/es.iterator.take.js');
require('core-js/modules/es.iterator.to-array.js');
