// Entry of dist/server.js (bin/svc-server): runs the server bundle, dist/server-main.cjs,
// through V8's code cache. Compiling the 6 MB bundle was most of the CPU of a server's start
// before its port answered (Node 20 caches no module's compiled code); with the cache, a
// start reads the functions an earlier server ran instead of compiling them.
// The cache lives in the server's code_cache_dir. This file runs before the settings are
// read (they are read by the code the cache is for), so it finds the directory as the
// settings default it: SVC_CODE_CACHE_DIR, else $SVC_HOME/server/cache, else
// ~/.svc/server/cache. A server whose code_cache_dir is set by --code-cache-dir or the
// config file elsewhere starts without one (and writes none: only where it keeps caches).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWithCodeCache, writeCodeCache } from '../../sandbox/code-cache';

const CACHE_PREFIX = 'svc-server';

function defaultCacheDirectory(env: NodeJS.ProcessEnv): string | null {
  if (env.SVC_CODE_CACHE_DIR) return path.resolve(env.SVC_CODE_CACHE_DIR);
  if (env.SVC_HOME) return path.resolve(env.SVC_HOME, 'server', 'cache');
  try {
    const home = os.homedir();
    return home ? path.join(home, '.svc', 'server', 'cache') : null;
  } catch {
    return null;
  }
}

const bundle = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server-main.cjs');
const directory = defaultCacheDirectory(process.env);
const { exports, pending } = loadWithCodeCache(bundle, CACHE_PREFIX, directory);
// Written when the process exits, so it holds what the server ran (start, requests,
// shutdown), and only by a server that listened: `--help` or a refused start writes nothing.
if (pending !== null) {
  void (exports as { served: Promise<string | null> }).served.then((cacheDirectory) => {
    if (cacheDirectory !== null && path.resolve(cacheDirectory) === directory) process.once('exit', () => writeCodeCache(pending, CACHE_PREFIX));
  });
}
