// Preloaded (NODE_OPTIONS=--require) into the Node processes tests start, bin/svc above all:
// V8's code cache for the large CommonJS files they require (TypeScript's 9 MB compiler
// first of all), kept in SVC_TEST_CODE_CACHE_DIR and shared by every test process. Node 20
// has no module.enableCompileCache (Node 22), and a cache made right after compiling holds
// only the top level; this one is made when the process exits, so it also holds the
// functions the process ran (for TypeScript: the checker's), which a later process then
// does not compile again. Written whole under a temporary name and renamed, so a reader
// never sees part of one; a cache V8 refuses (another V8 or other flags) is made again.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const { createHash } = require('node:crypto');

const directory = process.env.SVC_TEST_CODE_CACHE_DIR;
/** Files smaller than this compile faster than their cache is read and checked. */
const SMALLEST = 256 * 1024;

if (directory) {
  const pending = [];
  const compile = Module.prototype._compile;
  // What V8 checks a cache against besides the source: its version and the flags.
  const flavour = `${process.version}\0${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}`;

  Module.prototype._compile = function compileCached(content, filename) {
    if (content.length < SMALLEST || !filename.includes(`${path.sep}node_modules${path.sep}`)) return compile.call(this, content, filename);
    const key = createHash('sha256').update(flavour).update('\0').update(filename).update('\0').update(content).digest('hex').slice(0, 32);
    const file = path.join(directory, `${path.basename(filename)}-${key}.cache`);
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) pending.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const dirname = path.dirname(filename);
    const require = Module.createRequire(filename);
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname);
  };

  process.once('exit', () => {
    for (const { script, file } of pending) {
      const temporary = `${file}.${process.pid}-${require("node:worker_threads").threadId}.tmp`;
      try {
        fs.mkdirSync(directory, { recursive: true });
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, file);
      } catch {
        fs.rmSync(temporary, { force: true });
      }
    }
  });
}
