// Package projects written at test time: a file map on disk, and a billing sample
// Package (with a loopback-friendly API constant when asked).
import fs from 'node:fs';
import path from 'node:path';
import { tempDir as makeTempDir } from './temp-dirs';

export type FileMap = Record<string, string>;

export function writeFiles(root: string, files: FileMap): string {
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(root, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  return root;
}

export function tempDir(prefix = 'svc-pkg-'): string {
  return makeTempDir(prefix);
}

export function manifest(entries: Array<{ name: string; version?: string; description?: string; path?: string; dependencies?: string[]; keywords?: string[] }>, extra = ''): string {
  const tables = entries.map((e) =>
    [
      '[[package]]',
      `name = ${JSON.stringify(e.name)}`,
      `version = ${JSON.stringify(e.version ?? '0.1.0')}`,
      `description = ${JSON.stringify(e.description ?? `The ${e.name} Package`)}`,
      ...(e.path !== undefined ? [`path = ${JSON.stringify(e.path)}`] : []),
      ...(e.keywords ? [`keywords = ${JSON.stringify(e.keywords)}`] : []),
      ...(e.dependencies ? [`dependencies = ${JSON.stringify(e.dependencies)}`] : []),
    ].join('\n'),
  );
  return `${tables.join('\n\n')}\n${extra}`;
}

/** The billing sample Package: a capability, a check, a secret and one literal HTTP call. */
export function billingSources(api = 'https://billing.internal.example.com'): FileMap {
  return {
    'docs/readme.md': '# Billing\n\nApply credits.\n\n```ts\nimport { applyCredit } from "@acme/billing";\n```\n',
    'src/lib.ts': `import { check } from "svc:security";
import secrets from "svc:secrets";
import { post } from "svc:http";
import { classOf } from "./classes";

const API = ${JSON.stringify(api)};

/** Errors of the billing Package. */
export class BillingError extends Error {
  constructor(public code: string, message: string, public status = 0) { super(message); this.name = "BillingError"; }
}

/**
 * Apply a credit to a customer's account.
 * @param customerId Customer to credit.
 * @param amount Amount in cents, at most 100000.
 * @returns The new balance in cents.
 * @capability acme.com/credits.apply { customerId, amount, customerClass: string }
 */
export function applyCredit(customerId: string, amount: number): number {
  const customerClass = classOf(customerId);
  check("acme.com/credits.apply", { customerId, amount, customerClass });
  const key = secrets.get("BILLING_API_KEY");
  if (key == null) throw new BillingError("missing_token", "Bind BILLING_API_KEY in the Blueprint");
  const r = post(API + "/credits", { customerId, amount }, { authorization: "Bearer " + key });
  if (!r.ok) throw new BillingError("http_error", "billing request failed: HTTP " + r.status, r.status);
  return (r.json() as { balance: number }).balance;
}
`,
    'src/classes.ts': `/** The class of a customer. */
export function classOf(customerId: string): string {
  return customerId.startsWith("vip-") ? "gold" : "standard";
}
`,
  };
}
