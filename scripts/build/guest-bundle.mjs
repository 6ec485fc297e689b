import { build } from 'esbuild';

/** `entry` (a path under `root`) bundled for the isolate, as one ES module's text: es2022, no platform's built-in modules; `inject` as esbuild's. */
export async function guestModuleText(root, entry, plugins = [], inject = []) {
  const { outputFiles } = await build({ absWorkingDir: root, plugins, inject, entryPoints: [entry], bundle: true, platform: 'neutral', format: 'esm', target: 'es2022', write: false, logLevel: 'warning' });
  return outputFiles[0].text;
}
