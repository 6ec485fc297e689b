// Test-only: what code that escaped an isolate could do from this runner process. Runs only
// when the server was started with the test flag (sandbox/confine/environment.ts passes it
// through); it tries each escape once and writes the outcomes as one line to stderr, which
// the server shares with its runners. Nothing here runs in a server started without it.
import fs from 'node:fs';
import net from 'node:net';
import { SELF_TEST_SERVER_PID_VARIABLE, SELF_TEST_VARIABLE } from '../confine/environment';

/** What the test asks for: a TCP address to connect to and files to read. */
interface SelfTestRequest {
  connect?: { host: string; port: number };
  read?: string[];
}

export const SELF_TEST_MARK = 'svc-runner-self-test';

/** Each attempt's outcome: `allowed`, or `refused: <errno code>`. */
export async function runSelfTestIfAsked(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const raw = env[SELF_TEST_VARIABLE];
  if (raw === undefined) return;
  const request = JSON.parse(raw) as SelfTestRequest;
  const outcomes: Record<string, string> = { pid: String(process.pid) };
  if (request.connect) outcomes.connect = await attemptConnect(request.connect.host, request.connect.port);
  for (const file of request.read ?? []) outcomes[`read ${file}`] = attempt(() => fs.readFileSync(file));
  const serverPid = Number(env[SELF_TEST_SERVER_PID_VARIABLE]);
  if (serverPid > 0) outcomes.signal = attempt(() => process.kill(serverPid, 'SIGCONT'));
  process.stderr.write(`${SELF_TEST_MARK} ${JSON.stringify(outcomes)}\n`);
}

function attempt(action: () => unknown): string {
  try {
    action();
    return 'allowed';
  } catch (error) {
    return `refused: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
}

function attemptConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    try {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve('allowed');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(`refused: ${error.code ?? error.message}`));
    } catch (error) {
      resolve(`refused: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  });
}
