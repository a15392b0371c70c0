import { createContext, useContext, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

type Listener = () => void;

interface Listeners {
  /** Parts that measure themselves (scrolled views). */
  measure: Set<Listener>;
  /** What decides from those measurements (the session's row budget): after every measure. */
  settle: Set<Listener>;
}

const LayoutSyncContext = createContext<Listeners | undefined>(undefined);

/**
 * Lets the parts of one screen measure again whenever any part of it was drawn anew.
 *
 * Why: how many rows a part got is known only from the layout, after a commit. A part that
 * renders on its own — the event log gaining a line, the command line listing completions, the
 * dialog showing a failure — changes the rows left for the others without rendering them, so
 * their scroll position, page size and "↓ 12 more lines" would go stale until something else
 * drew them.
 */
export function LayoutSync({ children }: { children: ReactNode }) {
  const [listeners] = useState<Listeners>(() => ({ measure: new Set(), settle: new Set() }));
  return <LayoutSyncContext.Provider value={listeners}>{children}</LayoutSyncContext.Provider>;
}

/**
 * After every commit of the calling component: runs every registered `measure`, then every
 * `settle` (this component's `listener` among them, in its phase). A listener must set state only
 * when what it measured changed, so this comes to rest.
 */
export function useLayoutSync(listener?: Listener, { settle = false }: { settle?: boolean } = {}): void {
  const listeners = useContext(LayoutSyncContext);
  const latest = useRef(listener);
  useLayoutEffect(() => {
    latest.current = listener;
  });
  const listens = listener !== undefined;
  useLayoutEffect(() => {
    if (!listeners || !listens) return;
    const phase = settle ? listeners.settle : listeners.measure;
    const run = () => latest.current?.();
    phase.add(run);
    return () => {
      phase.delete(run);
    };
  }, [listeners, listens, settle]);
  useLayoutEffect(() => {
    if (!listeners) {
      latest.current?.();
      return;
    }
    for (const run of [...listeners.measure]) run();
    for (const run of [...listeners.settle]) run();
  });
}
