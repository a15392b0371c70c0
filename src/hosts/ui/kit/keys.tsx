import { useInput, type Key } from 'ink';
import { createContext, useContext, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A key handler: returns true when it used the key, so no other handler sees it.
 */
export type KeyHandler = (input: string, key: Key) => boolean;

interface Registration {
  priority: number;
  handler: { current: KeyHandler };
  active: { current: boolean };
}

/**
 * Who asks first: Ctrl-C; a modal dialog (its scrolled entry before its options); the command
 * line; the scrolled output of the last command; the server list; the scrolled detail view; Esc
 * closing the output, then Esc back to the list.
 */
export const KEY_PRIORITY = {
  quit: 100,
  dialogScroll: 55,
  dialog: 50,
  commandLine: 20,
  output: 15,
  list: 10,
  view: 8,
  dismiss: 6,
  back: 5,
} as const;

const KeyRouterContext = createContext<Set<Registration> | undefined>(undefined);

/**
 * Routes each key to exactly one handler: the active ones are asked in priority order (highest
 * first) until one uses it.
 *
 * Why not one `useInput` per component: Ink (re)registers `useInput` listeners in passive
 * effects and React renders after the whole chunk of input is handled, so two listeners decide on
 * stale `isActive` flags — Enter that submits a command line would also reach the server list that
 * became active by the same key, and the second of two keys in one chunk (a paste, `↓⏎`) would see
 * the first one's state undone. Here the decision is taken once per key, by handlers that read
 * their own state from refs updated in the same call.
 */
export function KeyRouter({ children }: { children: ReactNode }) {
  const [registry] = useState(() => new Set<Registration>());
  useInput((input, key) => {
    const ordered = [...registry].filter((r) => r.active.current).sort((a, b) => b.priority - a.priority);
    for (const r of ordered) if (r.handler.current(input, key)) return;
  });
  return <KeyRouterContext.Provider value={registry}>{children}</KeyRouterContext.Provider>;
}

/**
 * Registers a key handler with the nearest {@link KeyRouter} (or, without one, listens by
 * itself, so a component works and is tested on its own). The latest handler and `isActive` are
 * used on each key (kept in refs, updated at commit), so a handler is never stale by a render.
 */
export function useKeys(handler: KeyHandler, { priority = 0, isActive = true }: { priority?: number; isActive?: boolean } = {}) {
  const registry = useContext(KeyRouterContext);
  const handlerRef = useRef(handler);
  const activeRef = useRef(isActive);
  useLayoutEffect(() => {
    handlerRef.current = handler;
    activeRef.current = isActive;
  });
  useLayoutEffect(() => {
    if (!registry) return;
    const registration: Registration = { priority, handler: handlerRef, active: activeRef };
    registry.add(registration);
    return () => {
      registry.delete(registration);
    };
  }, [registry, priority]);
  useInput(
    (input, key) => {
      if (activeRef.current) handlerRef.current(input, key);
    },
    { isActive: registry === undefined && isActive },
  );
}

/**
 * `useState` plus a ref that holds the value set last, at once: a key handler reads the ref, so
 * the second key of a chunk sees what the first one did even though React has not rendered yet.
 */
export function useSyncState<T>(initial: T): [T, (next: T) => void, { readonly current: T }] {
  const [value, setValue] = useState<T>(initial);
  const ref = useRef<T>(initial);
  const set = (next: T) => {
    ref.current = next;
    setValue(() => next);
  };
  return [value, set, ref];
}
