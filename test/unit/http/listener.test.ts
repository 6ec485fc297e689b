// The listener's beforeAnswer hook: the audit records a request wrote are written (they are
// held for the end of the event-loop turn) before the request's answer leaves the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Hono } from 'hono';
import { startListener } from '../../../src/http/listener';
import { openLogOutputs, parseLogfmt } from '../../../src/audit';
import type { AppEnv } from '../../../src/http/types';
import { tempDir } from '../../support/temp-dirs';

function auditLines(file: string): Array<Record<string, string>> {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => Object.fromEntries(parseLogfmt(l))) : [];
}

test("a request's audit records are in the file before its answer's head is written, for explicit and implicit heads", async () => {
  const dir = tempDir('svc-');
  const auditFile = path.join(dir, 'audit.log');
  const outputs = openLogOutputs({ logFile: path.join(dir, 'svc.log'), filter: null, audit: { enabled: true, file: auditFile }, stderr: () => {} });
  // What the audit file held each time a head was about to be written.
  const seenAtAnswer: number[] = [];
  const app = new Hono<AppEnv>();
  app.get('/write', (c) => {
    outputs.audit.write({ type: 'admin', event: 'x', principal: 'p', route: '/write', status: 200, outcome: 'ok' });
    return c.text('ok');
  });
  app.get('/throw', () => {
    outputs.audit.write({ type: 'admin', event: 'y', principal: 'p', route: '/throw', status: 500, outcome: 'error' });
    throw new Error('boom');
  });
  const listener = await startListener(app, {
    bind: '127.0.0.1',
    port: 0,
    tls: null,
    beforeAnswer: () => {
      outputs.flush();
      seenAtAnswer.push(auditLines(auditFile).length);
    },
  });
  try {
    const first = await fetch(`http://${listener.address}/write`);
    assert.equal(await first.text(), 'ok');
    const second = await fetch(`http://${listener.address}/throw`);
    assert.equal(second.status, 500);
    await second.text();
    const missing = await fetch(`http://${listener.address}/nowhere`);
    assert.equal(missing.status, 404);
    await missing.text();
    assert.deepEqual(seenAtAnswer, [1, 2, 2], 'each answer waited for the records written before it');
    assert.deepEqual(auditLines(auditFile).map((r) => r.event), ['x', 'y']);
  } finally {
    listener.stopAccepting();
    listener.dropAll();
    outputs.close();
  }
});
