// The Blueprint registry: Blueprints with every revision in SQLite, the parsed current
// versions in memory, registration checks, the one-time import of the obsolete
// `blueprint_dir`, and a hook for capabilities that must react to a deletion (sessions).
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../store';
import type { ServerLog } from '../audit';
import type { Blueprint } from './model';
import { parseBlueprint, type BlueprintProblem } from './parse';
import { registrationProblem, type RegistrationContext } from './registration';

export interface StoredBlueprint {
  name: string;
  yaml: string;
  /** null when this server cannot parse the stored text. */
  blueprint: Blueprint | null;
  problem: string | null;
}

/**
 * A refused mutation: `stage` says whether the document itself is invalid or this server
 * refused it (a name conflict, or a check against this server's settings); `name` is the file's name when
 * it could be read.
 */
export type MutationFailure = { ok: false; problem: BlueprintProblem; name?: string; stage: 'document' | 'server' };
export type MutationResult = { ok: true; blueprint: Blueprint; created: boolean; oldHash: string | null } | MutationFailure;

export class BlueprintStoreError extends Error {}

/**
 * Mutations are synchronous from start to finish (one better-sqlite3 connection, no await
 * inside), so they are serialised by construction and complete even if the client leaves.
 */
export class BlueprintRegistry {
  private readonly current = new Map<string, StoredBlueprint>();
  private readonly deletedListeners: Array<(name: string, principal: string) => void> = [];
  private readonly storedListeners: Array<(blueprint: Blueprint) => void> = [];

  constructor(
    private readonly db: Database,
    private readonly context: RegistrationContext,
    private readonly log: ServerLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Loads every current Blueprint; unusable ones are logged and kept out of use. */
  load(): void {
    const rows = this.db
      .prepare('SELECT b.name AS name, r.yaml AS yaml FROM blueprints b JOIN blueprint_revisions r ON r.name = b.name AND r.revision = b.current_revision')
      .all() as Array<{ name: string; yaml: string }>;
    this.current.clear();
    for (const row of rows) {
      const parsed = parseBlueprint(row.yaml);
      if (parsed.ok) this.current.set(row.name, { name: row.name, yaml: row.yaml, blueprint: parsed.blueprint, problem: null });
      else {
        this.current.set(row.name, { name: row.name, yaml: row.yaml, blueprint: null, problem: parsed.problem.message });
        this.log.warn('svc_server::blueprints', 'stored Blueprint cannot be used', { name: row.name, reason: parsed.problem.message });
      }
    }
  }

  /**
   * One-time import of the obsolete blueprint_dir: valid
   * files are registered as by POST, invalid ones logged and skipped, then the directory
   * moves to `archive/blueprints/` beside it so the import never runs twice.
   */
  importDirectory(directory: string): void {
    if (!fs.existsSync(directory) || !fs.statSync(directory).isDirectory()) return;
    for (const file of fs.readdirSync(directory).sort()) {
      const full = path.join(directory, file);
      if (!/\.ya?ml$/i.test(file) || !fs.statSync(full).isFile()) continue;
      this.importFile(full, file);
    }
    const archive = path.join(path.dirname(directory), 'archive', 'blueprints');
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    const target = fs.existsSync(archive) ? `${archive}-${this.now()}` : archive;
    fs.renameSync(directory, target);
    this.log.info('svc_server::blueprints', 'blueprint_dir imported and archived', { archive: target });
  }

  private importFile(full: string, file: string): void {
    let text: string;
    try {
      text = fs.readFileSync(full, 'utf8');
    } catch (error) {
      this.log.warn('svc_server::blueprints', 'skipped unreadable Blueprint file in blueprint_dir', { file, reason: (error as Error).message });
      return;
    }
    const result = this.create(text);
    if (result.ok) this.log.info('svc_server::blueprints', 'imported Blueprint from blueprint_dir', { name: result.blueprint.name, file, hash: result.blueprint.hash });
    else this.log.warn('svc_server::blueprints', 'skipped invalid Blueprint file in blueprint_dir', { file, error: result.problem.code, reason: result.problem.message });
  }

  /** The usable current version, or null. */
  get(name: string): Blueprint | null {
    return this.current.get(name)?.blueprint ?? null;
  }

  stored(name: string): StoredBlueprint | null {
    return this.current.get(name) ?? null;
  }

  /** Usable names, sorted. */
  names(): string[] {
    return [...this.current.values()].filter((s) => s.blueprint).map((s) => s.name).sort();
  }

  usable(): Blueprint[] {
    return this.names().map((name) => this.current.get(name)!.blueprint!);
  }

  onDeleted(listener: (name: string, principal: string) => void): void {
    this.deletedListeners.push(listener);
  }

  /** Called after a Blueprint is created or replaced (listeners must not throw; warming, for one). */
  onStored(listener: (blueprint: Blueprint) => void): void {
    this.storedListeners.push(listener);
  }

  create(yaml: string): MutationResult {
    const parsed = parseBlueprint(yaml);
    if (!parsed.ok) return { ok: false, problem: parsed.problem, name: parsed.name, stage: 'document' };
    const blueprint = parsed.blueprint;
    const problem = registrationProblem(blueprint, this.context);
    if (problem) return { ok: false, problem, name: blueprint.name, stage: 'server' };
    if (this.current.has(blueprint.name)) {
      const message = `blueprint '${blueprint.name}' is already registered`;
      return { ok: false, problem: { code: 'already_exists', message, diagnostic: { message } }, name: blueprint.name, stage: 'server' };
    }
    this.store(blueprint);
    return { ok: true, blueprint, created: true, oldHash: null };
  }

  replace(name: string, yaml: string): MutationResult {
    const parsed = parseBlueprint(yaml);
    if (!parsed.ok) return { ok: false, problem: parsed.problem, name: parsed.name, stage: 'document' };
    const blueprint = parsed.blueprint;
    if (blueprint.name !== name) {
      const message = `blueprint name '${blueprint.name}' in the file does not match '${name}' in the request path`;
      return { ok: false, problem: { code: 'name_mismatch', message, diagnostic: { path: ['name'], message } }, name: blueprint.name, stage: 'server' };
    }
    const problem = registrationProblem(blueprint, this.context);
    if (problem) return { ok: false, problem, name, stage: 'server' };
    const previous = this.current.get(name);
    this.store(blueprint);
    return { ok: true, blueprint, created: previous === undefined, oldHash: previous?.blueprint?.hash ?? null };
  }

  /** Removes the registration (history kept); returns the old hash, or undefined when absent. */
  delete(name: string, principal: string): { oldHash: string | null } | undefined {
    const previous = this.current.get(name);
    if (!previous) return undefined;
    try {
      this.db.prepare('DELETE FROM blueprints WHERE name = ?').run(name);
    } catch (error) {
      throw new BlueprintStoreError((error as Error).message);
    }
    this.current.delete(name);
    for (const listener of this.deletedListeners) {
      // The registration is gone either way; one failing listener must not stop the others.
      try {
        listener(name, principal);
      } catch (error) {
        this.log.error('svc_server::blueprints', 'a Blueprint deletion listener failed', { name, error: (error as Error).message });
      }
    }
    return { oldHash: previous.blueprint?.hash ?? null };
  }

  /** Revision numbers kept for `name`, oldest first (history survives DELETE). */
  revisions(name: string): number[] {
    const rows = this.db.prepare('SELECT revision FROM blueprint_revisions WHERE name = ? ORDER BY revision').all(name) as Array<{ revision: number }>;
    return rows.map((row) => row.revision);
  }

  private store(blueprint: Blueprint): void {
    try {
      this.db.transaction(() => {
        const row = this.db.prepare('SELECT COALESCE(MAX(revision), 0) AS last FROM blueprint_revisions WHERE name = ?').get(blueprint.name) as { last: number };
        const revision = row.last + 1;
        this.db.prepare('INSERT INTO blueprint_revisions (name, revision, yaml, created_at_ms) VALUES (?, ?, ?, ?)').run(blueprint.name, revision, blueprint.yaml, this.now());
        this.db
          .prepare('INSERT INTO blueprints (name, current_revision) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET current_revision = excluded.current_revision')
          .run(blueprint.name, revision);
      }).immediate();
    } catch (error) {
      throw new BlueprintStoreError((error as Error).message);
    }
    this.current.set(blueprint.name, { name: blueprint.name, yaml: blueprint.yaml, blueprint, problem: null });
    for (const listener of this.storedListeners) listener(blueprint);
  }
}
