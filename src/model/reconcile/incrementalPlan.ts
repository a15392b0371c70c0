import { keptRunning, plan, type Blocked, type Change, type LiveEntry, type PlanStep, type WantedServer } from './plan.js';

/** One pass's plan when not every name was planned. */
export interface PassPlan {
  /**
   * The steps of the names planned, sorted by name: every step of the plan of all names that is
   * not `unchanged`, and some that are (the names looked at again).
   */
  steps: PlanStep[];
  /** How many steps of the plan of all names are `unchanged`: the reconcile event's count. */
  unchanged: number;
  /** How many of those leave a server running ({@link keptRunning}): the event's `kept` (decision 329). */
  kept: number;
}

/** The live entries of `names`, or of every known name when `names` is undefined. */
export type LiveOf = (names?: ReadonlySet<string>) => ReadonlyMap<string, LiveEntry>;

/**
 * {@link plan} with memory (decision 103): after a plan of every name, a pass plans only the names
 * whose desired outcome or live entry changed since the last plan (`dirty`) and the names whose
 * last step was not `unchanged` (their actions move the live side); every other name would be
 * planned `unchanged` again, by construction, and is only counted.
 */
export interface IncrementalPlan {
  /**
   * `dirty` must hold every name whose outcome (`wanted`/`blocked` member) or live entry (as
   * `plan` reads it) may differ from the last plan of this planner; `all` plans every name.
   */
  plan(
    wanted: Readonly<Record<string, WantedServer>>,
    blocked: Readonly<Record<string, Blocked>>,
    desiredNames: readonly string[] | undefined,
    dirty: Iterable<string> | 'all',
    liveOf: LiveOf,
  ): PassPlan;
}

export function createIncrementalPlan(): IncrementalPlan {
  /** Each name's change in the plan as it stands (names without a step are absent). */
  let changes: Map<string, Change> | undefined;
  /** The names whose change is not `unchanged`. */
  let unsettled = new Set<string>();
  let unchanged = 0;
  /** The `unchanged` names whose server runs on: a name's membership changes only with its outcome (dirty). */
  let running = new Set<string>();

  const everything = (...args: Parameters<typeof plan>): PassPlan => {
    const steps = plan(...args);
    const [wanted, blocked] = args;
    changes = new Map(steps.map((step) => [step.name, step.change]));
    unsettled = new Set(steps.filter((step) => step.change !== 'unchanged').map((step) => step.name));
    unchanged = steps.length - unsettled.size;
    running = new Set(steps.filter((step) => keptRunning(step, wanted, blocked)).map((step) => step.name));
    return { steps, unchanged, kept: running.size };
  };

  return {
    plan(wanted, blocked, desiredNames, dirty, liveOf) {
      if (dirty === 'all' || changes === undefined) return everything(wanted, blocked, liveOf(), desiredNames);
      const names = new Set(dirty);
      for (const name of unsettled) names.add(name);
      const steps = plan(wanted, blocked, liveOf(names), undefined, names);
      for (const name of names) {
        if (changes.get(name) === 'unchanged') unchanged -= 1;
        changes.delete(name);
        unsettled.delete(name);
        running.delete(name);
      }
      for (const step of steps) {
        changes.set(step.name, step.change);
        if (step.change === 'unchanged') unchanged += 1;
        else unsettled.add(step.name);
        if (keptRunning(step, wanted, blocked)) running.add(step.name);
      }
      return { steps, unchanged, kept: running.size };
    },
  };
}
