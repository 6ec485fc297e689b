// `console`: each call is one line (arguments rendered and space-joined), sent to the
// runner as it happens so the lines survive a run that ends at a limit.
import { native } from './native';
import { renderValue } from './render';

export function makeConsole(): Record<string, (...args: unknown[]) => void> {
  const line = (...args: unknown[]) => {
    let text: string;
    try {
      text = args.map(renderValue).join(' ');
    } catch (error) {
      text = `[unrenderable console arguments: ${(error as Error)?.message ?? 'error'}]`;
    }
    native.console.applySync(undefined, [text]);
  };
  return { log: line, info: line, warn: line, error: line, debug: line };
}
