// The list summary of a usable Blueprint (GET /v1/blueprints): its shape declared once here,
// with its value lists taken from the Blueprint schema, and the function that fills it typed
// by it. Plain zod (the CLI loads this module): src/http names it as an OpenAPI component.
import { z } from 'zod';
import { ActionSchema } from '../policy/rule-schema';
import type { Blueprint, SecretDeclaration } from './model';
import { VFS_MODES } from './schema';

const SECRET_SOURCES = ['store', 'harness'] as const satisfies ReadonlyArray<SecretDeclaration['source']>;

export const BlueprintSummary = z
  .strictObject({
    name: z.string(),
    hash: z.string(),
    vfs_mode: z.enum(VFS_MODES),
    idle_timeout_secs: z.number().int().nullable(),
    packages: z.array(z.string()),
    secrets: z.array(z.strictObject({ name: z.string(), source: z.enum(SECRET_SOURCES), store_key: z.string().optional() })),
    variables: z.array(z.string()),
    mcp_servers: z.array(z.string()),
    auth_proxy_hosts: z.array(z.string()),
    default_action: ActionSchema.describe("The Blueprint's `default` (deny when it has none)"),
    caller_count: z.number().int(),
    rule_count: z.number().int(),
    capability_count: z.number().int(),
  });
export type BlueprintSummary = z.infer<typeof BlueprintSummary>;

/** The list summary of one usable Blueprint. */
export function blueprintSummary(b: Blueprint): BlueprintSummary {
  const capabilities = new Set<string>();
  let ruleCount = 0;
  for (const rules of b.policy.callers.values()) {
    ruleCount += rules.length;
    for (const rule of rules) capabilities.add(rule.capability);
  }
  const byteOrder = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));
  return {
    name: b.name,
    hash: b.hash,
    vfs_mode: b.vfs.mode,
    idle_timeout_secs: b.idleTimeoutSecs,
    packages: [...b.packages].sort(byteOrder),
    secrets: [...b.declarations.secrets.entries()]
      .sort(([x], [y]) => byteOrder(x, y))
      .map(([name, s]) => (s.source === 'store' ? { name, source: 'store' as const, store_key: s.key } : { name, source: 'harness' as const })),
    variables: [...b.declarations.variables.keys()].sort(byteOrder),
    mcp_servers: Object.keys(b.mcp).sort(byteOrder),
    auth_proxy_hosts: [...new Set(b.authProxy.map((r) => r.host))],
    // An absent `default` denies: the summary says so rather than null.
    default_action: b.policy.default ?? 'deny',
    caller_count: b.policy.callers.size,
    rule_count: ruleCount,
    capability_count: capabilities.size,
  };
}
