// Package admin routes: install from the code host, list, remove.
// Failures answer `{error, message, warnings}` with the status packageErrorStatus gives each code;
// installs and removals write one `admin` audit record each.
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { AuditWriter, ServerLog } from '../../audit';
import { PackageError, packageErrorStatus, type PackageService } from '../../packages';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import type { AppEnv } from '../types';
import { bodyOf, jsonBody } from '../validation';

export interface PackageRouteDependencies {
  packages: PackageService;
  audit: AuditWriter;
  log: ServerLog;
}

export const installBody = z.object({
  url: z.string(),
  ref: z.string().nullable().optional(),
  package: z.string().nullable().optional(),
  upgrade: z.boolean().optional(),
  deny_warnings: z.boolean().optional(),
});

export function mountPackageRoutes(app: Hono<AppEnv>, deps: PackageRouteDependencies): void {
  const { packages, audit, log } = deps;
  const failure = (error: unknown, withWarnings: boolean): HttpError => {
    if (error instanceof PackageError && error.code !== 'unloadable') {
      const status = packageErrorStatus[error.code] as ContentfulStatusCode;
      if (status >= 500) log.error('svc_server::packages', 'package operation failed', { error: error.code, message: error.message });
      return HttpError.of(status, error.code, error.message, withWarnings ? { warnings: error.warnings } : {});
    }
    log.error('svc_server::packages', 'package operation failed', { error: (error as Error)?.message ?? String(error) });
    return HttpError.of(500, 'internal_error', 'the package operation failed; see the server log', withWarnings ? { warnings: [] } : {});
  };

  app.post('/v1/packages/install', jsonBody(installBody), adminAudit(audit, 'package_installed'), async (c) => {
    const body = bodyOf<z.infer<typeof installBody>>(c);
    try {
      const result = await packages.install({ url: body.url, ref: body.ref ?? null, package: body.package ?? null, upgrade: body.upgrade ?? false, denyWarnings: body.deny_warnings ?? false });
      noteAdminAudit(c, { url: body.url, sha: result.sha, packages: result.installed });
      log.info('svc_server::packages', 'packages installed', { sha: result.sha, installed: result.installed.map((p) => p.name).join(','), up_to_date: result.up_to_date.map((p) => p.name).join(',') });
      return c.json(result);
    } catch (error) {
      const refusal = failure(error, true);
      noteAdminAudit(c, { url: body.url, error: refusal.body.error });
      throw refusal;
    }
  });

  app.get('/v1/packages', (c) => c.json({ roots: packages.store.roots, packages: packages.list() }));

  app.delete('/v1/packages/*', adminAudit(audit, 'package_removed'), (c) => {
    const raw = new URL(c.req.url).pathname.slice('/v1/packages/'.length);
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      name = raw;
    }
    try {
      const result = packages.remove(name);
      noteAdminAudit(c, { name, version: result.version, digest: result.digest });
      return c.json(result);
    } catch (error) {
      noteAdminAudit(c, { name });
      throw failure(error, false);
    }
  });
}
