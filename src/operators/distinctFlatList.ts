/**
 * distinctFlatList — every item's list, concatenated, only when one of the lists changed.
 *
 * ```
 * source:  --[a:∅ b:∅]--[a:T b:∅]--[a:T b:∅]'--[a:T b:U]--|     T, U: lists (by reference)
 * result:  --[]---------[...T]-----------------[...T, ...U]--|
 * ```
 * A server that starts or goes connecting changes its status but not its tools: a host's
 * `setTools` must not run for it (decision 68). Lists are compared by reference, one `===` per item
 * that has a non-empty list, so a thousand servers cost a thousand comparisons, never a walk
 * through their tools and schemas. That is exact as long as an item keeps its list's reference
 * while the list's content stays equal — `LiveServers` keeps it — and entries of different
 * items never compare equal (tools carry their server; `project` adds it to prompts).
 */
import { distinctUntilChanged, map, pipe, type OperatorFunction } from 'rxjs';

/**
 * @param listOf an item's list (its reference is what is compared)
 * @param project what each entry becomes in the output, e.g. a prompt plus its server's name
 */
export function distinctFlatList<S, T>(listOf: (item: S) => readonly T[]): OperatorFunction<readonly S[], readonly T[]>;
export function distinctFlatList<S, T, R>(
  listOf: (item: S) => readonly T[],
  project: (entry: T, item: S) => R,
): OperatorFunction<readonly S[], readonly R[]>;
export function distinctFlatList<S, T, R>(
  listOf: (item: S) => readonly T[],
  project?: (entry: T, item: S) => R,
): OperatorFunction<readonly S[], readonly (T | R)[]> {
  return pipe(
    // Empty lists say nothing: a server appearing with no tools changes no tool list.
    map((items: readonly S[]) => items.filter((item) => listOf(item).length > 0)),
    distinctUntilChanged((a, b) => a.length === b.length && a.every((item, i) => listOf(item) === listOf(b[i]!))),
    map((items) =>
      items.flatMap((item): readonly (T | R)[] => (project ? listOf(item).map((entry) => project(entry, item)) : listOf(item))),
    ),
  );
}
