// Built-ins the prelude captures before any program runs: a program may replace
// JSON.stringify or JSON.parse for itself, but the runtime's own reporting must not follow.
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
