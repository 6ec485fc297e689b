// Edits a Blueprint file in place through the `yaml` Document API, so comments, key order
// and the author's layout of untouched parts survive: declare an MCP server (with its
// closing `deny` rule for `main`) and insert permission rules where they can match.
// Every edit is checked as `lint` checks a file before the file is written.
import fs from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { blueprintError, renderPath } from './diagnostics';
import { CliError } from './errors';
import { readBlueprintFile } from './blueprint-file';
import { documentProblem } from './lint';

export interface RuleSpec {
  capability: string;
  filter?: string;
  action: 'allow' | 'deny' | 'ask-human';
  name?: string;
}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
/** Keep long filters and URLs on one line; flow maps as `{a: 1}`, the style of the examples in docs/blueprints.md. */
const RENDER = { lineWidth: 0, flowCollectionPadding: false } as const;

export class BlueprintDocument {
  private constructor(
    readonly file: string,
    private readonly absolute: string,
    private readonly document: Document.Parsed,
  ) {}

  static open(file: string, cwd: string): BlueprintDocument {
    const source = readBlueprintFile(file, cwd);
    const document = parseDocument(source.text);
    const syntax = document.errors[0];
    if (syntax) {
      const at = syntax.linePos?.[0];
      throw blueprintError(file, { code: 'parse_error', message: `blueprint parse error: ${syntax.message.split('\n')[0]}`, ...(at ? { diagnostic: { line: at.line, col: at.col } } : {}) });
    }
    if (!isMap(document.contents)) throw blueprintError(file, { code: 'parse_error', message: 'blueprint parse error: the top level must be a mapping (`name: …`, `permissions: …`)' });
    return new BlueprintDocument(file, path.resolve(cwd, file), document);
  }

  /** `mcp.<name>: {url}` plus an unfiltered `deny` for `mcp.<name>` at the end of `main`'s rules. */
  addMcpServer(name: string, url: string, options: { oauth?: boolean } = {}): void {
    if (!SERVER_NAME.test(name)) throw new CliError(`MCP server name '${name}' may only use A–Z a–z 0–9 _ -`, 2);
    const servers = this.mapAt(['mcp']);
    if (servers.has(name)) throw new CliError(`${this.file} already declares mcp server '${name}'`, 1, [`change it in the file, or add grants with \`svc blueprint capability add mcp.${name} --filter 'tool == "<tool>"'\``]);
    servers.set(name, this.document.createNode(options.oauth ? { url, auth: { type: 'oauth2' } } : { url }));
    this.rulesOf('main').add(this.document.createNode({ capability: `mcp.${name}`, action: 'deny' }));
  }

  /**
   * Adds a rule to a caller's list, before the first unfiltered rule for the same
   * capability (a rule after it could never match: first match wins), else at the end.
   * Returns false when an identical rule is already there.
   */
  addRule(caller: string, rule: RuleSpec): boolean {
    const rules = this.rulesOf(caller);
    const existing = rules.items.map((item) => (isMap(item) ? (item.toJSON() as Record<string, unknown>) : {}));
    if (existing.some((r) => r.capability === rule.capability && (r.filter ?? undefined) === rule.filter && r.action === rule.action)) return false;
    const node = this.document.createNode({ ...(rule.name ? { name: rule.name } : {}), capability: rule.capability, ...(rule.filter !== undefined ? { filter: rule.filter } : {}), action: rule.action });
    const shadowing = existing.findIndex((r) => r.capability === rule.capability && (r.filter === undefined || r.filter === null));
    if (shadowing === -1) rules.items.push(node);
    else rules.items.splice(shadowing, 0, node);
    return true;
  }

  /**
   * Lists a Package and writes, for it and each dependency, an `allow` rule per `requires`
   * entry (with its derived filter) under that Package's caller, unless the caller already
   * had a rule for the capability. Returns what was added; `main` gets nothing here.
   */
  addPackage(name: string, closure: ReadonlyArray<{ name: string; requires: ReadonlyArray<{ capability: string; filter?: string }> }>): { listed: boolean; rules: Array<{ caller: string; rule: RuleSpec }> } {
    const packages = this.document.getIn(['packages'], true);
    let listed = false;
    if (packages === undefined || packages === null || (isScalar(packages) && packages.value === null)) {
      this.document.setIn(['packages'], this.document.createNode([name]));
      listed = true;
    } else if (!isSeq(packages)) {
      throw new CliError(`${this.file}: \`packages\` is not a list of names, so it cannot be edited; fix the file first`);
    } else if (!(packages as YAMLSeq).items.some((item) => isScalar(item) && item.value === name)) {
      (packages as YAMLSeq).add(this.document.createNode(name));
      listed = true;
    }
    const added: Array<{ caller: string; rule: RuleSpec }> = [];
    for (const item of closure) {
      const had = new Set(this.rulesOf(item.name).items.map((rule) => (isMap(rule) ? String((rule.toJSON() as Record<string, unknown>).capability) : '')));
      for (const required of item.requires) {
        if (had.has(required.capability)) continue;
        const rule: RuleSpec = { capability: required.capability, action: 'allow', ...(required.filter ? { filter: required.filter } : {}) };
        if (this.addRule(item.name, rule)) added.push({ caller: item.name, rule });
      }
    }
    return { listed, rules: added };
  }

  /** Secret names the `secrets:` block declares. */
  declaredSecrets(): Set<string> {
    const secrets = this.document.getIn(['secrets'], true);
    return new Set(isMap(secrets) ? (secrets as YAMLMap).items.map((pair) => String(isScalar(pair.key) ? pair.key.value : pair.key)) : []);
  }

  /** Validates the edited text with the server's parser, then writes it; nothing is written on failure. */
  save(): string {
    const text = this.document.toString(RENDER);
    const problem = documentProblem(text);
    if (problem) {
      const at = problem.diagnostic?.line !== undefined ? `${this.file}:${problem.diagnostic.line}:${problem.diagnostic.col ?? 1}` : this.file;
      const where = problem.diagnostic?.path?.length ? [`at ${renderPath(problem.diagnostic.path)}`] : [];
      throw new CliError(`the edit would leave an invalid Blueprint, so ${this.file} was not changed: ${at}: ${problem.message}`, 1, where);
    }
    fs.writeFileSync(this.absolute, text);
    return text;
  }

  /** The mapping at `path`, created (block style) when absent. */
  private mapAt(keys: string[]): YAMLMap {
    let node = this.document.getIn(keys, true);
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) {
      this.document.setIn(keys, this.document.createNode({}));
      node = this.document.getIn(keys, true);
    }
    if (!isMap(node)) throw new CliError(`${this.file}: \`${keys.join('.')}\` is not a mapping, so it cannot be edited; fix the file first`);
    // A written `{}` would stay a one-line flow map; entries read better as a block.
    (node as YAMLMap).flow = false;
    return node as YAMLMap;
  }

  /** A caller's rule list under `permissions`, created when absent. */
  private rulesOf(caller: string): YAMLSeq {
    const permissions = this.mapAt(['permissions']);
    let list = permissions.get(caller, true);
    if (list === undefined || (isScalar(list) && list.value === null)) {
      permissions.set(caller, this.document.createNode([]));
      list = permissions.get(caller, true);
    }
    if (!isSeq(list)) throw new CliError(`${this.file}: \`permissions.${caller}\` is not a list of rules, so it cannot be edited; fix the file first`);
    (list as YAMLSeq).flow = false;
    return list as YAMLSeq;
  }
}
