// The `vfs` part of the Blueprint schema: a mode name or a mapping, its named volume,
// `size_limit` (through the one size reader), and mounts (paths through mount-paths.ts).
// Which fields each mode takes is a pass over the written keys (vfs-section.ts).
import { z } from 'zod';
import { VFS_MODES, VOLUME_ACCESS, type MountDeclaration, type VfsDeclaration } from './model';
import { mountPathProblem } from './mount-paths';
import { sizeReading } from './readers';
import { described, isMapping, meta, nameAt, pathOf, quotedList, varsText, whereOf, type Issue } from './schema-kit';


/** A mount's or the named volume's refusal; `volume: 7` is refused, not read as the text `7`. */
const mountRefusal = (what: string) => (issue: Issue) => described(issue, `vfs mount '${nameAt(issue, 2)}': ${what}`, { path: pathOf(issue), inTurn: true });
const accessError = (issue: Issue) => (typeof issue.input === 'string' ? `unknown variant \`${issue.input}\`, expected one of ${quotedList(VOLUME_ACCESS)}` : `${whereOf(issue)}: expected a string`);

export const VfsMountSchema = z.strictObject(
  {
    mode: z.literal('named', {
      error: (issue) => (issue.input === undefined || typeof issue.input === 'string' ? mountRefusal('mounts are always named volumes; write `mode: named`')(issue) : `${whereOf(issue)}: expected a string`),
    }),
    volume: meta(z.string({ error: mountRefusal('`volume` must name a volume the operator declared') }).min(1, { error: mountRefusal('`volume` must name a volume the operator declared') }), {
      description: 'A volume the server declares',
      'x-yaml-string': true,
    }),
    subPath: varsText('A relative path inside the volume; ${vars.NAME} as a whole path component').optional(),
    access: z.enum(VOLUME_ACCESS, { error: accessError }).optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' && issue.input === null ? `vfs mount '${nameAt(issue, 2)}': needs \`mode: named\` and a \`volume\`` : undefined) },
);

/** Mount paths: absolute, plain, none inside another (in written order); at most 16. */
const Mounts = z.record(z.string(), VfsMountSchema).check(
  z.superRefine(
    (mounts, ctx) => {
      const seen: string[] = [];
      for (const mountPath of Object.keys(mounts)) {
        const problem = mountPathProblem(mountPath, seen);
        if (problem) ctx.addIssue({ code: 'custom', input: mountPath, path: [mountPath], message: `vfs mount '${mountPath}': ${problem}`, params: { at: 'key', beforeKeys: true } });
        seen.push(mountPath);
      }
      if (seen.length > 16) ctx.addIssue({ code: 'custom', input: mounts, message: 'vfs: at most 16 mounts', params: { afterFields: true } });
    },
    { when: (payload) => isMapping(payload.value) },
  ),
);

const sizeNumberError = (issue: Issue) => (typeof issue.input === 'number' ? sizeReading(issue.input).problem : undefined);
const Size = z
  .union([z.number({ error: sizeNumberError }).int({ error: sizeNumberError }).min(1, { error: sizeNumberError }), z.string()], { error: (issue) => sizeNumberError(issue) ?? `${whereOf(issue)}: expected a string` })
  .transform((size, ctx) => {
    const reading = sizeReading(size);
    if (reading.problem) ctx.issues.push({ code: 'custom', input: size, message: reading.problem });
    return reading.bytes ?? 0;
  });

const vfsModeError = (issue: Issue) => (typeof issue.input === 'string' ? `unknown vfs mode '${issue.input}', expected one of ${quotedList(VFS_MODES)}` : `${whereOf(issue)}: expected a string`);
const namedVolumeError = (issue: Issue) =>
  issue.code === 'too_small' ? 'vfs.volume is empty: name a volume the operator declared' : 'vfs.volume must be a string (quote a numeric-looking volume name)';

export const VfsMappingSchema = z
  .strictObject({
    mode: z.enum(VFS_MODES, { error: vfsModeError }).optional(),
    size_limit: meta(Size, { description: 'Bytes, or a size such as 100MB or 2GiB (binary units)' }).optional(),
    volume: meta(z.string({ error: namedVolumeError }).min(1, { error: namedVolumeError }), { description: 'mode named: the declared volume', 'x-yaml-string': true }).optional(),
    subPath: varsText('mode named: a relative path inside the volume; ${vars.NAME} as a whole path component').optional(),
    access: z.enum(VOLUME_ACCESS, { error: accessError }).optional(),
    cwd: varsText('The absolute directory relative paths resolve against; ${vars.NAME} as a whole path component').optional(),
    mounts: Mounts.optional().meta({ description: 'Absolute guest path to a named volume; at most 16, none inside another' }),
  })
  // Which fields each mode takes is a pass over the written keys (vfs-section.ts); a named volume needs its name.
  .check(
    z.superRefine(
      (vfs, ctx) => {
        if (vfs.mode === 'named' && vfs.volume === undefined) {
          ctx.addIssue({ code: 'custom', input: vfs, path: ['volume'], message: "vfs mode 'named' needs a `volume`: name a volume the operator declared", params: { at: 'parent', inTurn: true } });
        }
      },
      { when: (payload) => isMapping(payload.value) },
    ),
  );

/** `vfs: ephemeral` or a mapping; the model has both as a mapping. */
export const VfsSchema = z
  .union([z.enum(['none', 'ephemeral', 'per_session']), VfsMappingSchema], {
    error: (issue) => {
      if (typeof issue.input === 'string') return issue.input === 'named' ? "vfs mode 'named' needs a volume: write `vfs: {mode: named, volume: <name>}`" : vfsModeError(issue);
      return isMapping(issue.input) ? undefined : 'vfs: expected a mapping';
    },
  })
  .transform((vfs): VfsDeclaration => {
    if (typeof vfs === 'string') return { mode: vfs };
    const mode = vfs.mode ?? 'ephemeral';
    const mounts = Object.entries(vfs.mounts ?? {}).map(([mountPath, m]): [string, MountDeclaration] => [mountPath, { volume: m.volume, ...(m.subPath !== undefined ? { subPath: m.subPath } : {}), ...(m.access ? { access: m.access } : {}) }]);
    return {
      mode,
      ...(vfs.size_limit !== undefined ? { size_limit: vfs.size_limit } : {}),
      ...(mode === 'named' ? { volume: vfs.volume, ...(vfs.subPath !== undefined ? { subPath: vfs.subPath } : {}), ...(vfs.access ? { access: vfs.access } : {}) } : {}),
      ...(vfs.cwd !== undefined ? { cwd: vfs.cwd } : {}),
      ...(mounts.length > 0 ? { mounts: Object.fromEntries(mounts) } : {}),
    };
  });
