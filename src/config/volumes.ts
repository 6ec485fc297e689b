// Volume declarations: names, kinds, paths, access, size limits,
// and the overlap checks against server directories and each other.
import path from 'node:path';
import { invalid } from './errors';
import { asMap, asString, checkKeys, scalarText, type FileValue } from './file';
import { fileKeys } from './schema';
import { parseSize } from './values';
import type { VolumeDeclaration } from './settings';

const VOLUME_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function parseVolumes(value: FileValue | undefined, volumeDir: string): VolumeDeclaration[] {
  if (value === undefined || (value.kind === 'scalar' && value.value === null)) return [];
  const out: VolumeDeclaration[] = [];
  for (const [name, declaration] of asMap(value, 'volumes')) {
    const where = `volumes.${name}`;
    if (!VOLUME_NAME.test(name)) throw invalid(`config \`${where}\`: a volume name is 1-64 characters of letters, digits, \`_\` and \`-\``);
    const fields = asMap(declaration, where);
    checkKeys(fields, fileKeys.volume, where);
    const kind = fields.get('kind');
    if (!kind) throw invalid(`config \`${where}\`: \`kind\` is required (\`managed-local\` or \`local-path\`)`);
    const kindText = asString(kind, `${where}.kind`);
    if (kindText !== 'managed-local' && kindText !== 'local-path') {
      throw invalid(`config \`${where}.kind\`: expected \`managed-local\` or \`local-path\`, got \`${kindText}\``);
    }
    const sizeLimit = fields.get('size_limit');
    if (!sizeLimit) throw invalid(`config \`${where}\`: \`size_limit\` is required (a size such as \`500MB\`, or \`unlimited\`)`);
    const access = fields.has('access') ? asString(fields.get('access')!, `${where}.access`) : 'read_write';
    if (access !== 'read_write' && access !== 'read_only') throw invalid(`config \`${where}.access\`: expected \`read_write\` or \`read_only\`, got \`${access}\``);
    let directory: string;
    let declaredPath: string | undefined;
    if (kindText === 'local-path') {
      if (!fields.has('path')) throw invalid(`config \`${where}\`: \`path\` is required for a local-path volume`);
      declaredPath = asString(fields.get('path')!, `${where}.path`);
      if (!path.isAbsolute(declaredPath)) throw invalid(`config \`${where}.path\`: must be an absolute path, got \`${declaredPath}\``);
      directory = path.resolve(declaredPath);
    } else {
      if (fields.has('path')) throw invalid(`config \`${where}.path\`: a managed-local volume lives under volume_dir; remove \`path\``);
      directory = path.join(volumeDir, name);
    }
    out.push({
      name,
      kind: kindText,
      directory,
      ...(declaredPath !== undefined ? { path: declaredPath } : {}),
      access,
      sizeLimit: parseSize(scalarText(sizeLimit, `${where}.size_limit`), `config \`${where}.size_limit\``),
    });
  }
  return out;
}

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/** A volume directory may not be inside or contain a server directory or another volume. */
export function checkVolumeOverlaps(volumes: VolumeDeclaration[], serverPaths: Array<{ label: string; path: string }>): void {
  for (const volume of volumes) {
    for (const server of serverPaths) {
      if (volume.kind === 'managed-local' && server.label === 'volume_dir') continue;
      if (inside(volume.directory, server.path) || inside(server.path, volume.directory)) {
        throw invalid(`config \`volumes.${volume.name}\`: its directory overlaps the server's ${server.label}; choose a directory apart from server state`);
      }
    }
  }
  for (let i = 0; i < volumes.length; i++) {
    for (let j = i + 1; j < volumes.length; j++) {
      const a = volumes[i];
      const b = volumes[j];
      if (a.directory === b.directory) throw invalid(`config \`volumes\`: \`${a.name}\` and \`${b.name}\` name the same directory`);
      if (inside(a.directory, b.directory) || inside(b.directory, a.directory)) {
        throw invalid(`config \`volumes\`: \`${a.name}\` and \`${b.name}\` overlap; one directory is inside the other`);
      }
    }
  }
}
