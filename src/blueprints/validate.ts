// Validates a Blueprint document into the typed model, the one entry point over the
// section files. Stage 2: the schema parses the document (schema.ts; the YAML read under it
// by yaml-input.ts), the fields each vfs mode takes are a pass over the written keys and
// `default`/`permissions` are read by the policy module; of all faults the first the document shows is reported (schema-faults.ts).
// Stage 3 runs the semantic checks in one fixed order. The first fault becomes one diagnostic.
import { z } from 'zod';
import { parsePermissionPolicy } from '../policy';
import { DEFAULT_APPROVAL_TIMEOUT_SECS } from './model';
import { checkAuthProxyRule } from './auth-proxy-section';
import { checkGit } from './git-section';
import { checkLlm } from './llm-section';
import { checkMcp } from './mcp-section';
import { checkPackageName } from './packages-section';
import { failOnStructure, toPlain } from './permissions-section';
import { BlueprintValidationError, failAt, text } from './readers';
import { checkPlaceholders } from './placeholders';
import { BlueprintParser } from './schema';
import { blueprintErrorMap, firstFault, MAPPING_LEVEL, readerFault, schemaFaults, throwFault, unionIssuesExpanded, type Fault } from './schema-faults';
import { checkSecrets } from './secrets-section';
import { checkVariables } from './variables-section';
import { checkModeFields, checkVfsTemplates } from './vfs-section';
import { schemaInput } from './yaml-input';
import type { TreeNode } from './yaml-tree';

type Parsed = z.output<typeof BlueprintParser>;

/** Runs another reader of a top-level key, keeping its fault to be ranked with the schema's. */
function readWith<T>(faults: Fault[], root: TreeNode, key: string, read: () => T, suffix: number[] = []): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof BlueprintValidationError)) throw error;
    faults.push(readerFault(error, root, BlueprintParser, key, suffix));
    return undefined;
  }
}

/** A map of names in the order written (an object would put integer-like names first). */
function inWrittenOrder<T>(record: Record<string, T> | undefined, node: TreeNode | undefined): Map<string, T> {
  const names = node?.kind === 'map' ? node.entries.map((e) => e.key) : [];
  return new Map(names.filter((name) => record && Object.hasOwn(record, name)).map((name) => [name, record![name]]));
}

/** Everything validated: structure first, then the semantic checks in their fixed order. */
export function validateDocument(root: TreeNode) {
  const written = (key: string) => (root.kind === 'map' ? root.entries.find((e) => e.key === key && e.value.kind !== 'null')?.value : undefined);
  const input = schemaInput(BlueprintParser, root);
  const parse = (schema: z.ZodType, value: unknown) => schema.safeParse(value, { error: blueprintErrorMap, reportInput: true }).error?.issues ?? [];
  const parsed = BlueprintParser.safeParse(input, { error: blueprintErrorMap, reportInput: true });
  const faults = parsed.success ? [] : schemaFaults(unionIssuesExpanded(parsed.error.issues, BlueprintParser, parse), root, BlueprintParser);
  const vfsNode = written('vfs');
  if (vfsNode) readWith(faults, root, 'vfs', () => checkModeFields(vfsNode), [MAPPING_LEVEL]);
  const defaultNode = written('default');
  const permissionsNode = written('permissions');
  const defaultValue = defaultNode ? readWith(faults, root, 'default', () => text(defaultNode, ['default'])) : undefined;
  if (defaultNode && defaultValue !== undefined) readWith(faults, root, 'default', () => failOnStructure(parsePermissionPolicy(defaultValue, undefined), root));
  if (permissionsNode) readWith(faults, root, 'permissions', () => failOnStructure(parsePermissionPolicy(undefined, toPlain(permissionsNode)), root));
  const structure = firstFault(faults.filter((fault) => !fault.semantic));
  if (structure) throwFault(structure);

  // Stage 3: semantic checks, always in this order (the first fault is the one reported).
  const semantic = faults.filter((fault) => fault.semantic);
  const faultOf = (section: string) => {
    const fault = semantic.find((f) => f.path[0] === section);
    if (fault) throwFault(fault);
  };
  faultOf('kind');
  faultOf('name');
  // Only the llm section's faults of meaning remain; the rest of the document parses.
  const data: Parsed = parsed.success ? parsed.data : (BlueprintParser.extend({ llm: z.unknown().optional() }).parse(input) as Parsed);
  const secrets = inWrittenOrder(data.secrets, written('secrets'));
  const variables = inWrittenOrder(data.variables, written('variables'));
  const packages = data.packages ?? [];
  const authProxy = data.auth_proxy ?? [];
  const git = data.git ?? null;
  const mcp = data.mcp ?? {};
  const allowInsecureHttp = data.allow_insecure_http ?? false;
  packages.forEach((packageName) => checkPackageName(packageName));
  checkSecrets(secrets);
  authProxy.forEach((rule, i) => checkAuthProxyRule(rule, i, secrets));
  const policyResult = parsePermissionPolicy(defaultValue, permissionsNode ? toPlain(permissionsNode) : undefined);
  if ('error' in policyResult) failAt(policyResult.error, root);
  const policy = policyResult.policy;
  checkVariables(variables, policy);
  if (git) checkGit(git, variables);
  const vfs = data.vfs ?? { mode: 'ephemeral' };
  checkVfsTemplates(vfs, new Set(variables.keys()));
  checkMcp(mcp, secrets, policy, allowInsecureHttp);
  const llm = data.llm ?? {};
  // The schema's llm faults of meaning are reported in the turn checkLlm always gave them.
  checkLlm(llm, secrets, policy, (path) => {
    const fault = semantic.find((f) => f.path.length === path.length && f.path.every((step, i) => step === path[i]));
    if (fault) throwFault(fault);
  });
  faultOf('llm');
  checkPlaceholders(root);

  return {
    name: data.name,
    allowInsecureHttp,
    idleTimeoutSecs: data.idle_timeout ?? 86_400,
    vfs,
    secrets,
    variables,
    packages,
    authProxy,
    git,
    policy,
    mcp,
    llm,
    typecheck: data.typecheck ?? 'on',
    approvalTimeoutSecs: data.approval_timeout ?? DEFAULT_APPROVAL_TIMEOUT_SECS,
  };
}
