/**
 * An unknown flag in mcp-live's words (decision 324): "unknown option --debouce; did you mean
 * --debounce?" — the closest flag the command knows, when one is close; Node's own text
 * ("Unknown option '--debouce'. To specify a positional argument …") quotes unevenly and names
 * nothing to try.
 */
export function unknownOptionMessage(rawName: string, knownFlags: readonly string[]): string {
  const closest = closestFlag(rawName, knownFlags);
  return `unknown option ${rawName}${closest === undefined ? '' : `; did you mean --${closest}?`}`;
}

/**
 * The known long flag (without `--`) closest to `rawName` (`--debouce`), or undefined when none
 * is close: an edit distance (insert, delete, replace, swap of neighbours) of at most 1 for a flag
 * of up to 5 characters, at most 2 for a longer one, and less than the flag's length — a guess
 * further off names a flag the user never meant. A tie goes to the flag listed first. A short
 * flag (`-x`) gets no guess: one letter is no evidence.
 */
export function closestFlag(rawName: string, knownFlags: readonly string[]): string | undefined {
  if (!rawName.startsWith('--')) return undefined;
  const typed = rawName.slice(2).toLowerCase();
  let best: { flag: string; distance: number } | undefined;
  for (const flag of knownFlags) {
    const allowed = Math.min(flag.length <= 5 ? 1 : 2, flag.length - 1);
    // Lengths that far apart are that far apart at least: no table for a 10,000-character word.
    if (Math.abs(typed.length - flag.length) > allowed) continue;
    const distance = editDistance(typed, flag);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { flag, distance };
  }
  return best?.flag;
}

/** Optimal string alignment distance: insertions, deletions, replacements and swaps of neighbours, 1 each. */
export function editDistance(a: string, b: string): number {
  // Rows of the classic table; two back for the swap.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}
