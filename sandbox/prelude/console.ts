// `console`: each call is one line (arguments rendered and space-joined), sent to the
// runner as it happens so the lines survive a run that ends at a limit. The runner caps
// lines and bytes on its side; this side only guarantees the line is a string.
import { native } from './native';
import { ArrayPrototypeJoin, ArrayPrototypePush } from './primordials';
import { renderValue } from './render';

export function makeConsole(): Record<string, (...args: unknown[]) => void> {
  const line = (...args: unknown[]) => {
    const parts: string[] = [];
    for (let i = 0; i < args.length; i++) {
      let text: string;
      try {
        text = renderValue(args[i]);
      } catch {
        text = '[unrenderable value]';
      }
      ArrayPrototypePush(parts, text);
    }
    native.console(ArrayPrototypeJoin(parts, ' '));
  };
  return { log: line, info: line, warn: line, error: line, debug: line };
}
