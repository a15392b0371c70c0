/** Node's timers fire at once past this many ms, so no timeout of ours goes beyond it. */
export const MAX_TIMER_MS = 2_147_483_647;
