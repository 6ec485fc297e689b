import { build } from 'esbuild';

/** `entry` (a path under `root`) bundled for the isolate, as one ES module's text: es2022, no platform's built-in modules. */
export async function guestModuleText(root, entry, plugins = []) {
  const { outputFiles } = await build({ absWorkingDir: root, plugins, entryPoints: [entry], bundle: true, platform: 'neutral', format: 'esm', target: 'es2022', write: false, logLevel: 'warning' });
  return outputFiles[0].text;
}
