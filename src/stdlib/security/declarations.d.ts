declare module "svc:security" {
  /** Ask the Blueprint's rules; returns on allow, throws PermissionDeniedError on denial. */
  export function check(capability: string, context: object): void;
}
