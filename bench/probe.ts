/**
 * What a client of a contestant could use, over time: per server, whether its tools are
 * available (connected and at least one tool) and which tools it lists.
 *
 * A contestant feeds snapshots in — mcp-live from `servers$` (synchronously, as each change
 * happens), mcp-hub from polling its REST API — and the probe keeps only the changes, each with
 * the time it was observed. The figures of one measurement (edit → usable, the tools gap of the
 * servers that were not touched) are read from the changes after a mark.
 */

/** One server as a client sees it. */
export interface Availability {
  /** Connected and listing at least one tool. */
  up: boolean;
  tools: readonly string[];
}

interface Change {
  t: number;
  name: string;
  state: Availability;
}

const DOWN: Availability = { up: false, tools: [] };

export class Probe {
  private readonly current = new Map<string, Availability>();
  private readonly changes: Change[] = [];
  /** When the last change was observed (performance.now() ms). */
  lastChangeAt = 0;

  /** A full snapshot at time `t`: names missing from it are down (removed). */
  observe(t: number, snapshot: ReadonlyMap<string, Availability>): void {
    for (const [name, state] of snapshot) this.set(t, name, state);
    for (const name of [...this.current.keys()]) {
      if (!snapshot.has(name)) this.set(t, name, DOWN);
    }
  }

  state(name: string): Availability {
    return this.current.get(name) ?? DOWN;
  }

  /** Whether every one of `names` is up now. */
  allUp(names: Iterable<string>): boolean {
    for (const name of names) if (!this.state(name).up) return false;
    return true;
  }

  /** A position in the history: the figures of a measurement are read from here on. */
  mark(): number {
    return this.changes.length;
  }

  /** Drops history before `mark` (keeps memory flat over a long run). Returns the new mark 0. */
  forget(): number {
    this.changes.length = 0;
    return 0;
  }

  /** The first time at or after `mark` that `name` satisfied `test`, if it did. */
  firstTime(mark: number, name: string, test: (a: Availability) => boolean): number | undefined {
    for (let i = mark; i < this.changes.length; i++) {
      const c = this.changes[i]!;
      if (c.name === name && test(c.state)) return c.t;
    }
    return undefined;
  }

  /**
   * The time after which all of `names` were up and stayed up (the last change that completed
   * the set), measured from `mark`; `since` when they never went down; undefined if not all up now.
   */
  allUpSince(mark: number, names: readonly string[], since: number): number | undefined {
    if (!this.allUp(names)) return undefined;
    const wanted = new Set(names);
    let at = since;
    for (let i = mark; i < this.changes.length; i++) {
      const c = this.changes[i]!;
      if (wanted.has(c.name) && c.state.up) at = Math.max(at, c.t);
    }
    return at;
  }

  /**
   * The longest time any of `names` was down within [`from`, `to`], from the changes after `mark`
   * (a server down at `mark` counts from `from`; one still down counts until `to`). "Up" is `isUp`:
   * by default connected with tools; the edited server's gap asks for the tools it keeps.
   */
  longestDown(
    mark: number,
    names: readonly string[],
    from: number,
    to: number,
    before: ReadonlyMap<string, boolean>,
    isUp: (a: Availability) => boolean = (a) => a.up,
  ): number {
    const wanted = new Set(names);
    const downSince = new Map<string, number>();
    for (const name of names) if (before.get(name) === false) downSince.set(name, from);
    let longest = 0;
    for (let i = mark; i < this.changes.length; i++) {
      const c = this.changes[i]!;
      if (!wanted.has(c.name) || c.t > to) continue;
      const since = downSince.get(c.name);
      const up = isUp(c.state);
      if (!up && since === undefined) downSince.set(c.name, c.t);
      if (up && since !== undefined) {
        longest = Math.max(longest, c.t - since);
        downSince.delete(c.name);
      }
    }
    for (const since of downSince.values()) longest = Math.max(longest, to - since);
    return longest;
  }

  /** Whether each of `names` is up now: the `before` of {@link longestDown}. */
  upNow(names: readonly string[]): Map<string, boolean> {
    return new Map(names.map((n) => [n, this.state(n).up]));
  }

  private set(t: number, name: string, state: Availability): void {
    const before = this.current.get(name);
    if (before && before.up === state.up && sameTools(before.tools, state.tools)) return;
    if (!before && !state.up && state.tools.length === 0) {
      this.current.set(name, state);
      return;
    }
    this.current.set(name, state);
    this.changes.push({ t, name, state });
    this.lastChangeAt = t;
  }
}

function sameTools(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
