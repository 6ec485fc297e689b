declare module "svc:secrets" {
  /** The value of a secret the Blueprint declares, or undefined when undeclared or without a value. */
  export function get(name: string): string | undefined;
}
