/**
 * distinctUntilChangedUnless — drop a value equal to the last one passed, unless it bypasses the gate.
 *
 * ```
 * source:  --a--a--A--a--b--b--|     A = a manual reload of a (equal to a, bypass(A) = true)
 * result:  --a-----A-----b-----|
 * ```
 * `A` passes although it equals `a` and becomes the new base: the `a` after it is equal to
 * `A`, so it is dropped.
 *
 * The pipeline's reconcile gate (docs/contract.md, "Passes"): an assembled desired state that
 * equals the last one let through does not reconcile, but a manual reload (`/reload`,
 * `{"cmd":"reload"}`, `reload()`) always does — through the same gate, so it can never race the
 * watcher.
 */
import { distinctUntilChanged, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * Like `distinctUntilChanged(equals)`, but a value for which `bypass(value)` is true always
 * passes and becomes the base the next values are compared with. The first value always
 * passes.
 *
 * Built on `distinctUntilChanged`, whose comparator sees (last passed, current): a bypassing
 * current value is reported "not equal". So the state (the last value passed) is rxjs's own,
 * per subscription. An error thrown by `equals` or `bypass` goes downstream as an error.
 *
 * @param equals whether two values are the same for the gate (e.g. servers ∧ gating equality)
 * @param bypass whether a value must pass regardless (e.g. it carries a manual reload)
 */
export function distinctUntilChangedUnless<T>(
  equals: (a: T, b: T) => boolean,
  bypass: (value: T) => boolean,
): MonoTypeOperatorFunction<T> {
  return distinctUntilChanged<T>((previous, current) => !bypass(current) && equals(previous, current));
}
