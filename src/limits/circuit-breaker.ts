/**
 * Skips a failing dependency for a while. After one failure (a timeout, a refused connection) every call
 * goes straight to the fallback until the cool-down has passed; then one call tries the dependency again,
 * and its failure opens the breaker anew. A frozen Redis thus costs one command timeout per cool-down, not
 * one per rate-limit check (three per login).
 */
export class CircuitBreaker {
  #openUntil = 0;

  constructor(
    private readonly coolDownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while calls should skip the dependency. */
  get isOpen(): boolean {
    return this.now() < this.#openUntil;
  }

  /** Records a failure: the dependency is skipped for the cool-down. */
  trip(): void {
    this.#openUntil = this.now() + this.coolDownMs;
  }
}
