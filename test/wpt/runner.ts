// Runs web-platform-tests `.any.js` files through the real server's POST /v1/execute.
// The WPT files are not in the repository: they are read from a directory given by the
// caller (see wpt.test.ts). Each file becomes one program: testharness.js, the file's
// `// META: script=` dependencies and the test itself, concatenated into one module (code
// from strings is disabled in svc, so nothing can be loaded at run time), with a `fetch`
// that answers the data files the test names from an inlined table, and a `main` that
// waits for the harness (or its own deadline) and returns every subtest's outcome.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { TestServer } from '../harness';

export interface SubtestOutcome {
  name: string;
  /** PASS, FAIL, TIMEOUT, NOTRUN or PRECONDITION_FAILED (testharness.js's statuses). */
  status: string;
  message: string;
}

export interface FileOutcome {
  file: string;
  subtests: SubtestOutcome[];
  /** Why the file as a whole did not complete (harness error, run error), else null. */
  error: string | null;
}

/** The areas the suite covers, as directories under the WPT root. */
export const WPT_AREAS = [
  'url',
  'encoding',
  'html/webappapis/atob',
  'html/webappapis/structured-clone',
  'html/webappapis/timers',
  'dom/abort',
  'dom/events',
  'fetch/api/headers',
  'fetch/api/request',
  'fetch/api/response',
  'FileAPI',
  'WebCryptoAPI',
  'streams',
  'hr-time',
  'console',
];

/**
 * Areas run in part: WebCrypto's files for the algorithms svc provides (digest, HMAC,
 * AES-GCM, random values); RSA, EC, PBKDF2, HKDF and the other AES modes are not in svc,
 * and their files (tens of thousands of generated subtests) would say only that.
 */
const AREA_SUBSETS: Record<string, RegExp> = {
  WebCryptoAPI: /^WebCryptoAPI\/(digest\/|encrypt_decrypt\/aes_gcm|generateKey\/(failures|successes)_(AES-GCM|HMAC)|sign_verify\/hmac|import_export\/symmetric_importKey|getRandomValues|randomUUID|historical)/,
};

/** How long a file's program waits for its subtests before it reports what it has. */
export const FILE_DEADLINE_MS = 20_000;

/** Every runnable `.any.js` file of the areas, as paths relative to the WPT root. */
export function listTests(root: string): string[] {
  const out: string[] = [];
  let area = '';
  const walk = (dir: string) => {
    if (!fs.existsSync(path.join(root, dir))) return;
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'resources' && entry.name !== 'support') walk(relative);
      } else if (runnable(root, relative) && (AREA_SUBSETS[area] === undefined || AREA_SUBSETS[area].test(relative))) out.push(relative);
    }
  };
  for (const each of WPT_AREAS) {
    area = each;
    walk(each);
  }
  return out;
}

/**
 * Files left out: idlharness tests (they fetch WebIDL files by computed paths and test
 * interface shapes, which the declarations check covers), `.sub.` files (they need the WPT
 * server's substitutions) and files meant only for a window.
 */
function runnable(root: string, file: string): boolean {
  if (!file.endsWith('.any.js') || file.includes('.sub.') || path.basename(file).startsWith('idlharness')) return false;
  const globals = meta(fs.readFileSync(path.join(root, file), 'utf8'), 'global');
  if (globals.length === 0) return true;
  const kinds = globals.flatMap((value) => value.split(',')).map((value) => value.trim());
  return kinds.some((kind) => kind !== 'window' && !kind.startsWith('!'));
}

function meta(source: string, key: string): string[] {
  const out: string[] = [];
  for (const line of source.split('\n')) {
    const match = /^\/\/ META: *([a-z_]+)=(.*)$/.exec(line.trim());
    if (match && match[1] === key) out.push(match[2].trim());
    else if (line.trim() !== '' && !line.startsWith('//')) break;
  }
  return out;
}

function resolveFrom(root: string, file: string, reference: string): string {
  const clean = reference.split(/[?#]/)[0];
  return clean.startsWith('/') ? clean.slice(1) : path.posix.join(path.posix.dirname(file), clean);
}

/** The data files a script names by a string literal (`fetch("resources/x.json")`) that exist. */
function dataFiles(root: string, file: string, source: string, into: Map<string, string>): void {
  for (const match of source.matchAll(/["'`]([^"'`\s]+\.(?:json|txt))["'`]/g)) {
    const target = resolveFrom(root, file, match[1]);
    const full = path.join(root, target);
    if (fs.existsSync(full) && fs.statSync(full).isFile()) into.set(match[1], fs.readFileSync(full, 'utf8'));
  }
}

/**
 * Names the scripts assign without declaring them anywhere in scope (`x = [];` at the top
 * level or inside a function, `[a, b] = ...`, `for (k in o)`, `n++`): in the browser's
 * sloppy scripts that makes a global, in our module it throws. TypeScript's binder resolves
 * each assigned identifier over the whole program; the ones that resolve to nothing are
 * made globals by the prologue (those the isolate already has are left alone).
 */
function undeclaredAssignments(source: string): string[] {
  const name = '/wpt-program.js';
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const host: ts.CompilerHost = {
    getSourceFile: (fileName) => (fileName === name ? file : undefined),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => {},
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => fileName === name,
    readFile: () => undefined,
  };
  const checker = ts.createProgram({ rootNames: [name], options: { allowJs: true, noLib: true, noResolve: true, types: [] }, host }).getTypeChecker();
  const out = new Set<string>();
  const target = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      if (!checker.getSymbolAtLocation(node)) out.add(node.text);
    } else if (ts.isArrayLiteralExpression(node)) node.elements.forEach(target);
    else if (ts.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        if (ts.isShorthandPropertyAssignment(property)) target(property.name);
        else if (ts.isPropertyAssignment(property)) target(property.initializer);
        else if (ts.isSpreadAssignment(property)) target(property.expression);
      }
    } else if (ts.isSpreadElement(node)) target(node.expression);
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) target(node.left);
    else if (ts.isParenthesizedExpression(node)) target(node.expression);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) target(node.left);
    else if ((ts.isForInStatement(node) || ts.isForOfStatement(node)) && !ts.isVariableDeclarationList(node.initializer)) target(node.initializer);
    else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) target(node.operand);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...out];
}

/** The program for one test file. */
export function buildProgram(root: string, file: string): string {
  const source = fs.readFileSync(path.join(root, file), 'utf8');
  const scripts = meta(source, 'script').map((reference) => resolveFrom(root, file, reference));
  const data = new Map<string, string>();
  const parts: string[] = [];
  for (const script of scripts) {
    const text = fs.readFileSync(path.join(root, script), 'utf8');
    dataFiles(root, script, text, data);
    parts.push(`// ---- ${script}\n${text}`);
  }
  dataFiles(root, file, source, data);
  const harness = fs.readFileSync(path.join(root, 'resources/testharness.js'), 'utf8');
  const sloppyGlobals = undeclaredAssignments([harness, ...parts, source].join('\n'));
  // The WPT server's origin is where a browser would load the file from; tests read
  // location.search (test variants) and location.href (relative URLs).
  const href = `http://web-platform.test:8000/${file}`;
  const prologue = `// ---- svc WPT prologue
globalThis.self = globalThis;
globalThis.location = { href: ${JSON.stringify(href)}, origin: 'http://web-platform.test:8000', protocol: 'http:', host: 'web-platform.test:8000', hostname: 'web-platform.test', port: '8000', pathname: ${JSON.stringify('/' + file)}, search: '', hash: '', toString() { return this.href; } };
globalThis.GLOBAL = { isWindow: () => false, isWorker: () => false, isShadowRealm: () => false };
for (const name of ${JSON.stringify(sloppyGlobals)}) if (!(name in globalThis)) globalThis[name] = undefined;
const __wptData = ${JSON.stringify(Object.fromEntries(data))};
const __wptFetch = globalThis.fetch;
globalThis.fetch = function (input, init) {
  const key = typeof input === 'string' ? input : String(input && input.url !== undefined ? input.url : input);
  if (Object.prototype.hasOwnProperty.call(__wptData, key)) return Promise.resolve(new Response(__wptData[key], { headers: { 'content-type': key.endsWith('.json') ? 'application/json' : 'text/plain' } }));
  return __wptFetch.apply(this, arguments);
};
`;
  const reporter = `// ---- svc WPT reporter
const __wptResults = [];
let __wptFinished;
const __wptDone = new Promise((resolve) => { __wptFinished = resolve; });
const __wptStatusNames = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
setup({ explicit_timeout: true });
add_result_callback((t) => { __wptResults.push({ name: String(t.name), status: __wptStatusNames[t.status] || String(t.status), message: t.message == null ? '' : String(t.message).slice(0, 300) }); });
add_completion_callback((tests, status) => {
  const error = status.status === 0 ? null : 'harness status ' + status.status + ': ' + String(status.message).slice(0, 300);
  for (const t of tests) if (!__wptResults.some((r) => r.name === String(t.name)) && t.status !== 0 && t.phase !== undefined && t.phase < 3) __wptResults.push({ name: String(t.name), status: 'NOTRUN', message: '' });
  __wptFinished(error);
});
`;
  const epilogue = `// ---- svc WPT main
export async function main() {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve('the file did not finish within ${FILE_DEADLINE_MS} ms'), ${FILE_DEADLINE_MS}); });
  const error = await Promise.race([__wptDone, late]);
  clearTimeout(timer);
  return JSON.stringify({ subtests: __wptResults, error });
}
`;
  return [prologue, harness, reporter, ...parts, `// ---- ${file}\n${source}`, epilogue].join('\n');
}

/** Runs one file and gathers its subtests; a run that fails outright is a file error. */
export async function runFile(server: TestServer, blueprint: string, root: string, file: string): Promise<FileOutcome> {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code: buildProgram(root, file) } });
  if (reply.status !== 200) return { file, subtests: [], error: `HTTP ${reply.status}: ${reply.text.slice(0, 300)}` };
  const result = reply.json;
  if (result.error) return { file, subtests: [], error: `${result.error.kind}: ${String(result.error.message).slice(0, 300)}` };
  const parsed = JSON.parse(result.result) as { subtests: SubtestOutcome[]; error: string | null };
  return { file, subtests: uniqueNames(parsed.subtests), error: parsed.error };
}

/** WPT allows two subtests of one name; the later ones get " (2)", " (3)"... */
function uniqueNames(subtests: SubtestOutcome[]): SubtestOutcome[] {
  const seen = new Map<string, number>();
  return subtests.map((subtest) => {
    const count = (seen.get(subtest.name) ?? 0) + 1;
    seen.set(subtest.name, count);
    return count === 1 ? subtest : { ...subtest, name: `${subtest.name} (${count})` };
  });
}

/** Runs the files `concurrency` at a time. */
export async function runAll(server: TestServer, blueprint: string, root: string, files: string[], concurrency: number): Promise<FileOutcome[]> {
  const outcomes: FileOutcome[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      outcomes[index] = await runFile(server, blueprint, root, files[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return outcomes;
}

/** The area of a file: the longest WPT_AREAS entry it lies under. */
export function areaOf(file: string): string {
  let best = '';
  for (const area of WPT_AREAS) if (file.startsWith(`${area}/`) && area.length > best.length) best = area;
  return best;
}
