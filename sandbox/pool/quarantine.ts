// Tenants whose runs broke a runner lately: their next runs are placed on a runner of their
// own (a quarantine runner), never beside another tenant's runs, so a program that crashes
// its runner on purpose or by accident cannot keep taking other tenants' runs down with it.

/** How long after the last runner it broke a tenant's runs stay apart. */
export const QUARANTINE_MS = 5 * 60_000;

export class Quarantine {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly windowMs = QUARANTINE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A run of this tenant broke a runner. */
  blame(tenant: string): void {
    this.until.set(tenant, this.now() + this.windowMs);
  }

  /** Whether this tenant's runs go to the quarantine runner. */
  holds(tenant: string): boolean {
    const until = this.until.get(tenant);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(tenant);
    return false;
  }

  /** Whether any tenant is still held (a quarantine runner without runs goes once none is). */
  get empty(): boolean {
    for (const tenant of [...this.until.keys()]) this.holds(tenant);
    return this.until.size === 0;
  }
}
