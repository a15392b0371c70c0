/**
 * One deadline over a whole request, however many rounds it takes (decision 382): a 2026-07-28
 * server may answer a call with `input_required` several times, and the SDK gives each round's
 * request a fresh `timeout` of its own — so a call of 8 rounds could last 8 timeouts. This one
 * runs from the call's start; a progress notification of the server starts it again (as the
 * SDK's `resetTimeoutOnProgress` does for one request). When it passes, `signal` aborts with
 * `message`: the request in flight is cancelled, and so is a form the user is being asked.
 *
 *   start ----p--------x        x = aborted `ms` after the last progress p (or the start)
 *   start ---------done         done() before: nothing happens
 */
export interface CallDeadline {
  /** The caller's signal and the deadline in one. */
  readonly signal: AbortSignal;
  /** The server reported progress: the deadline starts again. */
  progressed(): void;
  /** The request settled: the timer is cleared. */
  done(): void;
}

export function callDeadline(ms: number, message: string, caller?: AbortSignal): CallDeadline {
  const controller = new AbortController();
  const fire = (): void => controller.abort(new Error(message));
  let timer = setTimeout(fire, ms);
  const signal = caller === undefined ? controller.signal : AbortSignal.any([caller, controller.signal]);
  return {
    signal,
    progressed() {
      if (controller.signal.aborted) return;
      clearTimeout(timer);
      timer = setTimeout(fire, ms);
    },
    done: () => clearTimeout(timer),
  };
}

/**
 * The SDK reports each `input_required` round it fulfils as a progress notification of the call
 * ("Fulfilling input required by 'tools/call' (round 2)"): not the server's progress, so it is
 * neither passed on to the caller (its numbers are rounds, not the server's) nor a sign of life.
 */
export function isRoundProgress(message: string | undefined): boolean {
  return message?.startsWith('Fulfilling input required by ') === true;
}
