/**
 * A count of the work the simulated cluster's write paths do (nodes of JSON visited, items
 * moved), so that "linear in the size of the object and the request" can be checked and
 * enforced without a clock: the patch, apply and managed-fields code calls {@linkcode spend} as
 * it goes, and a {@linkcode WorkMeter} made active with {@linkcode metered} adds it up. Native
 * linear operations (`JSON.parse`, `JSON.stringify`) are not counted.
 *
 * The code that spends is synchronous, so one module-level meter serves: it is active only
 * inside `metered`.
 * @module
 */

let active: WorkMeter | undefined;
const parents = new WeakMap<WorkMeter, WorkMeter | undefined>();

/** Adds up work; with a limit, the work past it is refused. */
export class WorkMeter {
  /** Work spent so far. */
  units = 0;
  #limit: number;
  readonly #refuse: (units: number, limit: number) => never;

  /**
   * `limit` is the most work allowed; past it `refuse` is called (it throws), in the middle of
   * the work, so the work done stays bounded by the limit plus one step.
   */
  constructor(
    limit = Infinity,
    refuse: (units: number, limit: number) => never = (units, max) => {
      throw new RangeError(`work limit exceeded: ${units} > ${max}`);
    },
  ) {
    this.#limit = limit;
    this.#refuse = refuse;
  }

  /** Allows `units` more work (for work the caller has bounded otherwise). */
  raise(units: number): void {
    this.#limit += units;
  }

  /** Counts `units` of work. */
  spend(units: number): void {
    this.units += units;
    if (this.units > this.#limit) this.#refuse(this.units, this.#limit);
  }
}

/** Counts `units` of work on the active meter and the meters it runs inside, if any. */
export function spend(units = 1): void {
  for (let m = active; m !== undefined; m = parents.get(m)) m.spend(units);
}

/** Runs `fn` with `meter` active (inside another meter's `metered`: both count). */
export function metered<T>(meter: WorkMeter, fn: () => T): T {
  const previous = active;
  parents.set(meter, previous);
  active = meter;
  try {
    return fn();
  } finally {
    active = previous;
  }
}
