// A built Package as stored: metadata.json, lib.js and its map,
// declarations.d.ts, capabilities.yaml and docs/readme.md.
import type { CapabilityFile } from './capabilities';

export const SCHEMA_VERSION = 1;

export interface GithubSource {
  owner: string;
  repo: string;
  sha: string;
  digest: string;
}

export interface Metadata {
  schema_version: number;
  package_name: string;
  package_version: string;
  description: string;
  keywords: string[];
  dependencies: Array<{ name: string; version: string }>;
  exports: { values: string[]; types: string[] };
  /** Absent for `publish-local` builds. */
  source?: { github: GithubSource };
  built_by: string;
}

export interface Artifact {
  metadata: Metadata;
  lib: string;
  map: string;
  declarations: string;
  capabilities: CapabilityFile;
  readme: string;
}

/** The files of an artifact directory, by relative path. */
export const ARTIFACT_FILES = ['metadata.json', 'lib.js', 'lib.js.map', 'declarations.d.ts', 'capabilities.yaml', 'docs/readme.md'] as const;
export type ArtifactFile = (typeof ARTIFACT_FILES)[number];
