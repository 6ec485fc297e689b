// Reads a secret value without it ever being a command-line argument: from a prompt with
// echo off when standard input is a terminal, otherwise all of standard input with one
// trailing newline removed.
import { CliError } from './errors';
import type { CliIo } from './io';

export async function readSecretValue(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  if (stdin.isTTY && typeof stdin.setRawMode === 'function') return promptHidden(io, stdin, prompt);
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Raw mode so nothing typed is echoed; Enter ends, Backspace edits, Ctrl-C/Ctrl-D abort. */
function promptHidden(io: CliIo, stdin: NodeJS.ReadStream, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (outcome: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      io.stderr('\n');
      outcome();
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish(() => resolve(value));
        if (char === '\u0003' || char === '\u0004') return finish(() => reject(new CliError('cancelled; nothing was stored', 1)));
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else value += char;
      }
    };
    // Echo goes off before the prompt shows, so nothing typed after it is ever echoed.
    stdin.setRawMode(true);
    io.stderr(prompt);
    stdin.resume();
    stdin.on('data', onData);
  });
}
