// Validates a Blueprint document into the typed model, the one entry point over the
// section files: stage 2 reads each top-level key's structure in document order, stage 3
// runs the semantic checks in one fixed order (validateDocument). The first fault wins and becomes
// one diagnostic.
import { parsePermissionPolicy } from '../policy';
import { DEFAULT_APPROVAL_TIMEOUT_SECS, MAX_APPROVAL_TIMEOUT_SECS, type AuthProxyRule, type GitDeclaration, type LlmDeclaration, type McpServerDeclaration, type SecretDeclaration, type TypecheckMode, type VariableDeclaration, type VfsDeclaration } from './model';
import { checkAuthProxyRule, parseAuthProxy } from './auth-proxy-section';
import { checkGit, parseGit } from './git-section';
import { checkLlm, parseLlm } from './llm-section';
import { checkMcp, parseMcp } from './mcp-section';
import { checkPackageName, parsePackages } from './packages-section';
import { failOnStructure, toPlain } from './permissions-section';
import { asMap, bool, checkKeys, fail, failAt, get, NAME, parseDuration, text, type MapNode } from './readers';
import { checkPlaceholders } from './placeholders';
import { BlueprintDocumentSchema, fieldNames } from './schema';
import { checkSecrets, parseSecrets } from './secrets-section';
import { checkVariables, parseVariables } from './variables-section';
import { checkVfsTemplates, parseVfs } from './vfs-section';
import type { TreeNode } from './yaml-tree';

const TOP_KEYS = fieldNames(BlueprintDocumentSchema);

/** Stage-2 results of the top-level keys, filled in document order. */
interface Sections {
  kind?: string;
  name?: string;
  allowInsecureHttp: boolean;
  idleTimeoutSecs: number;
  vfs: VfsDeclaration;
  secrets: Map<string, SecretDeclaration>;
  variables: Map<string, VariableDeclaration>;
  variableNodes: Map<string, TreeNode>;
  packages: string[];
  authProxy: AuthProxyRule[];
  git: GitDeclaration | null;
  mcp: Record<string, McpServerDeclaration>;
  llm: LlmDeclaration;
  typecheck: TypecheckMode;
  approvalTimeoutSecs: number;
}

function parseApprovalTimeout(node: TreeNode): number {
  const raw = text(node, ['approval_timeout']);
  const seconds = parseDuration(raw, ['approval_timeout'], node, true);
  if (seconds > MAX_APPROVAL_TIMEOUT_SECS) fail('parse_error', `approval_timeout: duration '${raw}' is over the most allowed, 30d`, ['approval_timeout'], node);
  return seconds;
}

/** `typecheck`: whether programs are type-checked before they run. */
function parseTypecheck(node: TreeNode): TypecheckMode {
  const value = text(node, ['typecheck']);
  const mode = BlueprintDocumentSchema.shape.typecheck.unwrap().options.find((m) => m === value);
  if (!mode) fail('parse_error', `typecheck: unknown value '${value}': expected \`strict\`, \`on\` (the default) or \`off\``, ['typecheck'], node);
  return mode;
}

/** Stage 2: each present top-level key's structure, walked in document order (first fault wins). */
function readSections(doc: MapNode, root: TreeNode): Sections {
  const sections: Sections = {
    allowInsecureHttp: false,
    idleTimeoutSecs: 86_400,
    vfs: { mode: 'ephemeral' },
    secrets: new Map(),
    variables: new Map(),
    variableNodes: new Map(),
    packages: [],
    authProxy: [],
    git: null,
    mcp: {},
    llm: {},
    typecheck: 'on',
    approvalTimeoutSecs: DEFAULT_APPROVAL_TIMEOUT_SECS,
  };
  for (const entry of doc.entries) {
    const node = entry.value;
    if (node.kind === 'null') {
      checkKeys({ ...doc, entries: [entry] }, TOP_KEYS, []);
      continue;
    }
    switch (entry.key) {
      case 'kind':
        sections.kind = text(node, ['kind']);
        break;
      case 'name':
        sections.name = text(node, ['name']);
        break;
      case 'allow_insecure_http':
        sections.allowInsecureHttp = bool(node, ['allow_insecure_http']);
        break;
      case 'idle_timeout':
        sections.idleTimeoutSecs = parseDuration(text(node, ['idle_timeout']), ['idle_timeout'], node);
        break;
      case 'vfs':
        sections.vfs = parseVfs(node);
        break;
      case 'secrets':
        sections.secrets = parseSecrets(node);
        break;
      case 'variables':
        [sections.variables, sections.variableNodes] = parseVariables(node);
        break;
      case 'packages':
        sections.packages = parsePackages(node);
        break;
      case 'auth_proxy':
        sections.authProxy = parseAuthProxy(node);
        break;
      case 'git':
        sections.git = parseGit(node);
        break;
      case 'default':
        failOnStructure(parsePermissionPolicy(text(node, ['default']), undefined), root);
        break;
      case 'permissions':
        failOnStructure(parsePermissionPolicy(undefined, toPlain(node)), root);
        break;
      case 'mcp':
        sections.mcp = parseMcp(node);
        break;
      case 'llm':
        sections.llm = parseLlm(node);
        break;
      case 'typecheck':
        sections.typecheck = parseTypecheck(node);
        break;
      case 'approval_timeout':
        sections.approvalTimeoutSecs = parseApprovalTimeout(node);
        break;
      default:
        checkKeys({ ...doc, entries: [entry] }, TOP_KEYS, []);
    }
  }
  if (sections.name === undefined) fail('parse_error', 'missing field `name`', ['name'], root);
  return sections;
}

/** Everything validated: structure first, then the semantic checks in their fixed order. */
export function validateDocument(root: TreeNode) {
  const doc = asMap(root, [])!;
  const sections = readSections(doc, root);
  const { kind, allowInsecureHttp, idleTimeoutSecs, vfs, secrets, variables, variableNodes, packages, authProxy, git, mcp, llm, typecheck, approvalTimeoutSecs } = sections;
  const name = sections.name!;
  const kindNode = get(doc, 'kind');
  const nameNode = get(doc, 'name')!;
  const packagesNode = get(doc, 'packages');
  const secretsNode = get(doc, 'secrets');
  const gitNode = get(doc, 'git');
  const defaultNode = get(doc, 'default');
  const permissionsNode = get(doc, 'permissions');
  const policyResult = parsePermissionPolicy(defaultNode ? text(defaultNode, ['default']) : undefined, permissionsNode ? toPlain(permissionsNode) : undefined);

  // Stage 3: semantic checks, always in this order (the first fault is the one reported).
  if (kind !== undefined && kind !== 'blueprint') fail('invalid_kind', `unknown kind '${kind}': expected \`blueprint\` (or omit \`kind\`)`, ['kind'], kindNode);
  if (name === '') fail('invalid_name', 'blueprint name must not be empty', ['name'], nameNode);
  if (!NAME.test(name)) fail('invalid_name', `blueprint name '${name}' contains characters outside [A-Za-z0-9_-]`, ['name'], nameNode);
  packages.forEach((packageName, i) => checkPackageName(packageName, packagesNode!.kind === 'seq' ? packagesNode!.items[i] : null));
  checkSecrets(secrets, secretsNode);
  authProxy.forEach((rule, i) => checkAuthProxyRule(rule, i, secrets));
  if ('error' in policyResult) failAt(policyResult.error, root);
  const policy = policyResult.policy;
  checkVariables(variables, variableNodes, policy, permissionsNode);
  if (git) checkGit(git, variables, gitNode!);
  checkVfsTemplates(vfs, new Set(variables.keys()), get(doc, 'vfs') ?? null);
  checkMcp(mcp, secrets, policy, allowInsecureHttp);
  checkLlm(llm, secrets, policy);
  checkPlaceholders(root);

  return { name, allowInsecureHttp, idleTimeoutSecs, vfs, secrets, variables, packages, authProxy, git, policy, mcp, llm, typecheck, approvalTimeoutSecs };
}
