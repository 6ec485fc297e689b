// `svc secret put | list | delete`: the server's sealed secret store (POST /v1/secrets,
// GET /v1/secrets, DELETE /v1/secrets/{key}). A value is never a command-line argument
// and never printed.
import type { Command } from 'commander';
import { refusalWithHint, ServerClient, serverCommand, type ServerOptions } from '../client';
import { subcommand } from '../help';
import { say, warn } from '../io';
import type { CliContext } from '../context';
import { readSecretValue } from '../secret-input';

const STORE_HINTS: Record<string, string> = {
  no_secret_store: 'start the server with a store key, e.g. SVC_SECRET_KEY=$(openssl rand -base64 32) (keep the key: the stored values need it)',
  invalid_key: 'a key is 1–256 bytes of A–Z a–z 0–9 _ - . / with no leading or trailing `/`, no empty, `.` or `..` segment, and not under `mcp_oauth/`',
  invalid_value: 'the value is empty: type it at the prompt or pipe it on standard input',
  not_found: 'nothing to delete: the key has no value on this server',
};

export function registerSecretCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const secret = subcommand(root, 'secret', "store or delete values in the server's sealed secret store", ['svc secret put billing_api_key < billing-key.txt']).alias('secrets');

  serverCommand(secret, 'put', 'store a value under a key (from a prompt with echo off on a terminal, else standard input with one trailing newline removed)', ['svc secret put billing_api_key', 'svc secret put billing_api_key < key.txt'])
    .argument('<key>', 'store key, e.g. billing_api_key or team/api_key')
    .action(async (key: string, options: ServerOptions) => {
      const client = ServerClient.from(options, io);
      const value = await readSecretValue(io, `Value for secret '${key}' (input hidden): `);
      const reply = await client.request('POST', '/v1/secrets', { body: { key, value } });
      if (reply.status !== 200) throw refusalWithHint(reply, STORE_HINTS);
      say(io, `Stored secret '${reply.json.key}'`);
    });

  serverCommand(secret, 'list', 'list the stored keys, one a line (never the values)', ['svc secret list', 'svc secret list --prefix team/'])
    .option('--prefix <prefix>', 'only keys that start with this text, e.g. team/')
    .option('--json', 'print the keys as a JSON array')
    .action(async (options: ServerOptions & { prefix?: string; json?: boolean }) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/secrets', { params: { query: options.prefix !== undefined ? { prefix: options.prefix } : {} } });
      if (reply.status !== 200) throw refusalWithHint(reply, STORE_HINTS);
      const keys: string[] = Array.isArray(reply.json?.keys) ? reply.json.keys : [];
      if (options.json) say(io, JSON.stringify(keys));
      else if (keys.length === 0) warn(io, options.prefix !== undefined ? `no stored keys start with '${options.prefix}'` : 'no secrets are stored (add one with `svc secret put <key>`)');
      else for (const key of keys) say(io, key);
    });

  serverCommand(secret, 'delete', 'delete the value stored under a key', ['svc secret delete billing_api_key'])
    .argument('<key>', 'store key')
    .action(async (key: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('DELETE', '/v1/secrets/{key}', { params: { path: { key } } });
      if (reply.status !== 200) throw refusalWithHint(reply, STORE_HINTS);
      say(io, `Deleted secret '${reply.json.key}'`);
    });
}
