/**
 * withSessionEnablement — the session's `/mcp enable|disable` overrides, joined into every input.
 *
 * ```
 * inputs:       --i-------j------|
 * enablement:   e----f-----------
 * output:       --a--b----c------
 * ```
 * a = i + e, b = i + f, c = j + f: a new override is a new input, so it passes the reconcile
 * gate like an edited file (the overrides land in `gating`, which the gate compares).
 */
import { combineLatest, map, type Observable, type OperatorFunction } from 'rxjs';
import type { AssembleInput } from '../model/settings/assemble.js';

/**
 * Sets `sessionEnablement` of each input to the latest overrides (name → enabled). Completes
 * when both complete, as `combineLatest` does.
 */
export function withSessionEnablement(
  enablement$: Observable<Readonly<Record<string, boolean>>>,
): OperatorFunction<AssembleInput, AssembleInput> {
  return (input$) =>
    combineLatest([input$, enablement$]).pipe(map(([input, sessionEnablement]) => ({ ...input, sessionEnablement })));
}
