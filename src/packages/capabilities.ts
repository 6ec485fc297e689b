// `capabilities.yaml`: what a Package provides to its callers and
// what its own code requires. Written by the build, read by registration and tooling.
import { parse, stringify } from 'yaml';
import type { FieldType } from './build/tags';

export interface ProvidedField {
  type: FieldType;
  description?: string;
}

export interface ProvidedCapability {
  name: string;
  description?: string;
  fields: Record<string, ProvidedField>;
}

export interface RequiredCapability {
  capability: string;
  filter?: string;
}

export interface CapabilityFile {
  namespace: string;
  provides: ProvidedCapability[];
  requires: RequiredCapability[];
}

export function renderCapabilities(file: CapabilityFile): string {
  return stringify(file, { lineWidth: 0 });
}

/** Parses and shape-checks the file; throws with a message naming what is wrong. */
export function parseCapabilities(text: string): CapabilityFile {
  const value = parse(text) as Partial<CapabilityFile> | null;
  if (!value || typeof value !== 'object' || typeof value.namespace !== 'string') throw new Error('capabilities.yaml: `namespace` is missing');
  const provides = value.provides ?? [];
  const requires = value.requires ?? [];
  if (!Array.isArray(provides) || provides.some((p) => !p || typeof p.name !== 'string')) throw new Error('capabilities.yaml: `provides` must be a list of entries with `name`');
  if (!Array.isArray(requires) || requires.some((r) => !r || typeof r.capability !== 'string')) throw new Error('capabilities.yaml: `requires` must be a list of entries with `capability`');
  return { namespace: value.namespace, provides: provides.map((p) => ({ ...p, fields: p.fields ?? {} })), requires };
}
