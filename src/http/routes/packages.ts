// Package admin routes: install from the code host, list, remove.
// Failures answer `{error, message, warnings}` with the status packageErrorStatus gives each code;
// installs and removals write one `admin` audit record each.
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from '@hono/zod-openapi';
import type { AuditWriter, ServerLog } from '../../audit';
import { PackageError, packageErrorStatus, type PackageService } from '../../packages';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody, PackageInstalled, PackageList, PackageRemoved } from '../schemas';
import type { AppEnv } from '../types';

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
}).openapi('PackageInstallRequest');

export const packageRoutes = {
  list: defineRoute({ method: 'get', path: '/v1/packages', role: 'admin', tag: 'packages', summary: 'Installed Packages', responses: { 200: json(PackageList, 'Packages of every store root') } }),
  install: defineRoute({ method: 'post', path: '/v1/packages/install', role: 'admin', tag: 'packages', summary: 'Install Packages from a repository', body: installBody,
    responses: { 200: json(PackageInstalled, 'Installed'), 400: json(ErrorBody, 'Invalid request or package'), 409: json(ErrorBody, '`dependency_conflict` or `already_installed`'), 502: json(ErrorBody, 'Download failed'), 503: json(ErrorBody, '`github_rate_limited`') } }),
  remove: defineRoute({ method: 'delete', path: '/v1/packages/{name}', rest: true, role: 'admin', tag: 'packages', summary: 'Remove an installed Package',
    responses: { 200: json(PackageRemoved, 'Removed'), 400: json(ErrorBody, '`invalid_name`'), 404: json(ErrorBody, '`not_found`'), 409: json(ErrorBody, '`not_managed`') } }),
};

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

  serve(app, packageRoutes.install, adminAudit(audit, 'package_installed'), async (c, { body }) => {
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

  serve(app, packageRoutes.list, (c) => c.json({ roots: packages.store.roots, packages: packages.list() }));

  serve(app, packageRoutes.remove, adminAudit(audit, 'package_removed'), (c, { params: { name } }) => {
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
