// Parses and validates Blueprint YAML into the typed model with its hash, or one
// diagnostic (error class, message, YAML path, line and column when known).
import { z } from 'zod';
import type { Blueprint } from './model';
import { blueprintHash, canonicalModel } from './canonical';
import { BlueprintValidationError, locate, type BlueprintErrorCode } from './readers';
import { validateDocument } from './validate';
import { readTree, TreeError, type ParsedTree, type TreeNode } from './yaml-tree';

/** Where a Blueprint document is wrong: its YAML path, line and column when known (owned here; the HTTP answers and the CLI use it). */
export const BlueprintDiagnostic = z.strictObject({ path: z.array(z.union([z.string(), z.number().int()])).optional(), line: z.number().int().optional(), col: z.number().int().optional(), message: z.string() });
export type Diagnostic = z.infer<typeof BlueprintDiagnostic>;

export interface BlueprintProblem {
  code: BlueprintErrorCode | 'name_mismatch' | 'undeclared_volume' | 'volume_access_exceeded' | 'unresolved_secret' | 'package_missing' | 'already_exists';
  message: string;
  diagnostic: Diagnostic;
}

/** On failure, `name` is the document's `name` when it could be read (for audit records). */
export type ParseResult = { ok: true; blueprint: Blueprint } | { ok: false; problem: BlueprintProblem; name?: string };

/** The top-level `name` as written, when it is a plain string. */
function writtenName(root: TreeNode): string | undefined {
  if (root.kind !== 'map') return undefined;
  const value = root.entries.find((entry) => entry.key === 'name')?.value;
  return value?.kind === 'scalar' && typeof value.value === 'string' && value.value !== '' ? value.value : undefined;
}

export function parseBlueprint(yaml: string): ParseResult {
  let tree: ParsedTree;
  try {
    tree = readTree(yaml);
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    const where = error.position;
    const message = error.message === 'blueprint YAML is empty' ? error.message : `blueprint parse error: ${error.message}`;
    return { ok: false, problem: { code: 'parse_error', message, diagnostic: { ...(error.path.length ? { path: error.path } : {}), ...(where ? { line: where.line, col: where.col } : {}), message: error.message } } };
  }
  try {
    const validated = validateDocument(tree.root);
    const model = canonicalModel(validated);
    const blueprint: Blueprint = {
      name: validated.name,
      allowInsecureHttp: validated.allowInsecureHttp,
      idleTimeoutSecs: validated.idleTimeoutSecs,
      vfs: validated.vfs,
      declarations: { variables: validated.variables, secrets: validated.secrets },
      packages: [...validated.packages].sort(),
      authProxy: validated.authProxy,
      git: validated.git,
      policy: validated.policy,
      mcp: validated.mcp,
      llm: validated.llm,
      typecheck: validated.typecheck,
      approvalTimeoutSecs: validated.approvalTimeoutSecs,
      hash: blueprintHash(model),
      yaml,
    };
    return { ok: true, blueprint };
  } catch (error) {
    if (!(error instanceof BlueprintValidationError)) throw error;
    // Structure faults carry the node the reader was at; semantic ones are found by their path.
    const position = tree.position(error.code === 'parse_error' ? error.offset : locate(tree.root, error.path));
    const name = writtenName(tree.root);
    return {
      ok: false,
      ...(name !== undefined ? { name } : {}),
      problem: {
        code: error.code,
        message: error.message,
        diagnostic: { ...(error.path.length ? { path: error.path } : {}), ...(position ? { line: position.line, col: position.col } : {}), message: error.leaf },
      },
    };
  }
}
