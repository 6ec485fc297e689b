// The `default` and `permissions` sections: the policy module parses the rules; a fault of
// their structure (filter syntax included) is a stage-2 parse_error, any other a stage-3 one.
import { parsePermissionPolicy } from '../policy';
import { failAt } from './readers';
import type { TreeNode } from './yaml-tree';

/** A structure fault of the rules (filter syntax included) is a stage-2 parse_error. */
export function failOnStructure(result: ReturnType<typeof parsePermissionPolicy>, root: TreeNode): void {
  if (!('error' in result)) return;
  if (result.error.code === 'parse_error' || result.error.code === 'invalid_filter') failAt({ ...result.error, code: 'parse_error' }, root);
}

/** The YAML tree as plain values, the form the policy module reads. */
export function toPlain(node: TreeNode): unknown {
  switch (node.kind) {
    case 'null':
      return null;
    case 'scalar':
      return typeof node.value === 'string' ? node.value : node.quoted ? node.text : node.value;
    case 'seq':
      return node.items.map(toPlain);
    case 'map':
      return Object.fromEntries(node.entries.map((e) => [e.key, toPlain(e.value)]));
  }
}
