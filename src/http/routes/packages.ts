// Package admin routes (server-operations §4.5): install from the code host, list, remove.
// Failures answer `{error, message, warnings}` with the status of the reference table;
// installs and removals write one `admin` audit record each.
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { AuditWriter, ServerLog } from '../../audit';
import { PackageError, packageErrorStatus, type PackageService } from '../../packages';
import { writeAdminAudit } from '../admin-audit';
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
  const failure = (error: unknown, withWarnings: boolean) => {
    if (error instanceof PackageError && error.code !== 'unloadable') {
      const status = packageErrorStatus[error.code] as ContentfulStatusCode;
      if (status >= 500) log.error('svc_server::packages', 'package operation failed', { error: error.code, message: error.message });
      return { status, body: { error: error.code, message: error.message, ...(withWarnings ? { warnings: error.warnings } : {}) } };
    }
    log.error('svc_server::packages', 'package operation failed', { error: (error as Error)?.message ?? String(error) });
    return { status: 500 as ContentfulStatusCode, body: { error: 'internal_error', message: 'the package operation failed; see the server log', ...(withWarnings ? { warnings: [] } : {}) } };
  };

  app.post('/v1/packages/install', jsonBody(installBody), async (c) => {
    const body = bodyOf<z.infer<typeof installBody>>(c);
    try {
      const result = await packages.install({ url: body.url, ref: body.ref ?? null, package: body.package ?? null, upgrade: body.upgrade ?? false, denyWarnings: body.deny_warnings ?? false });
      writeAdminAudit(audit, c, 'package_installed', 200, { url: body.url, sha: result.sha, packages: result.installed });
      log.info('svc_server::packages', 'packages installed', { sha: result.sha, installed: result.installed.map((p) => p.name).join(','), up_to_date: result.up_to_date.map((p) => p.name).join(',') });
      return c.json(result);
    } catch (error) {
      const { status, body: answer } = failure(error, true);
      writeAdminAudit(audit, c, 'package_installed', status, { url: body.url, error: answer.error });
      return c.json(answer, status);
    }
  });

  app.get('/v1/packages', (c) => c.json({ roots: packages.store.roots, packages: packages.list() }));

  app.delete('/v1/packages/*', (c) => {
    const raw = new URL(c.req.url).pathname.slice('/v1/packages/'.length);
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      name = raw;
    }
    try {
      const result = packages.remove(name);
      writeAdminAudit(audit, c, 'package_removed', 200, { name, version: result.version, digest: result.digest });
      return c.json(result);
    } catch (error) {
      const { status, body } = failure(error, false);
      writeAdminAudit(audit, c, 'package_removed', status, { name });
      return c.json(body, status);
    }
  });
}
