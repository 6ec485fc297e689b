// The lazy groups' modules (./lazy.ts, ./url-group.ts), bundled on their own by
// scripts/build/prelude.mjs as the body of one function, evaluateLazyWeb (svc-build:lazy-web), called
// at the first read of any lazy web global. Bundled with the prelude, esbuild hoisted their
// function declarations and module wrappers to its top level, so every fresh context made
// them, used or not (bench/PROFILE.md). Modules the prelude imports itself are not copied in:
// the function's bundle imports the prelude's own, so both share one instance of each.
// `require` as a statement: as a value the bundler would build a namespace object for it with
// its interop helpers, which read built-ins when called (the build fails if one is used).
export default {
  platform(): void {
    require('./platform');
  },
  events(): void {
    require('./event-globals');
  },
  text(): void {
    require('./text');
  },
  url(): void {
    require('./url-globals');
  },
};
