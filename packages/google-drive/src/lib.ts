/**
 * Greets someone.
 * @param who Name to greet.
 * @returns The greeting.
 */
export function hello(who: string): string {
  return "Hello, " + who + "!";
}
