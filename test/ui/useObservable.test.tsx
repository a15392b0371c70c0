import { Text } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { BehaviorSubject, Observable, Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useObservable, useThrottledObservable } from '../../src/hosts/ui/kit/useObservable.js';
import { tick } from './fakeLive.js';

afterEach(cleanup);

let renders = 0;
function Show({ obs$, throttled = false }: { obs$: Observable<number>; throttled?: boolean }) {
  renders += 1;
  // Both hooks always run (hooks may not be conditional); one of them is shown.
  const plain = useObservable(throttled ? NEVER : obs$, -1);
  const slow = useThrottledObservable(throttled ? obs$ : NEVER, -1);
  return <Text>value {throttled ? slow : plain}</Text>;
}
const NEVER = new Subject<number>().asObservable();

describe('useObservable', () => {
  it('shows the initial value, then each emission, and unsubscribes on unmount', async () => {
    const source = new Subject<number>();
    const { lastFrame, unmount } = render(<Show obs$={source} />);
    expect(lastFrame()).toBe('value -1');
    await vi.waitFor(() => expect(source.observed).toBe(true));
    source.next(1);
    await vi.waitFor(() => expect(lastFrame()).toBe('value 1'));
    source.next(2);
    await vi.waitFor(() => expect(lastFrame()).toBe('value 2'));
    unmount();
    expect(source.observed).toBe(false);
  });

  it('follows a new observable when the identity changes, dropping the old one', async () => {
    const a = new BehaviorSubject(1);
    const b = new BehaviorSubject(2);
    const { lastFrame, rerender } = render(<Show obs$={a} />);
    await vi.waitFor(() => expect(lastFrame()).toBe('value 1'));
    rerender(<Show obs$={b} />);
    await vi.waitFor(() => expect(lastFrame()).toBe('value 2'));
    expect(a.observed).toBe(false);
    a.next(9);
    await tick(20);
    expect(lastFrame()).toBe('value 2');
  });
});

describe('useThrottledObservable', () => {
  it('shows the first value at once and the last of a storm, with a bounded number of renders', async () => {
    const source = new BehaviorSubject(0);
    const { lastFrame } = render(<Show obs$={source} throttled />);
    await vi.waitFor(() => expect(lastFrame()).toBe('value 0'));
    renders = 0;
    // One value per macrotask (a synchronous burst would be batched by React anyway).
    const started = performance.now();
    for (let i = 1; i <= 200; i++) {
      source.next(i);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await vi.waitFor(() => expect(lastFrame()).toBe('value 200'));
    // At most one render per 33 ms frame (plus the leading and trailing ones), however slow the machine.
    expect(renders).toBeLessThanOrEqual(Math.ceil((performance.now() - started) / 33) + 2);
    expect(renders).toBeLessThan(100);
  });

  it('does not resubscribe on a re-render with the same observable', async () => {
    const subscribe = vi.fn();
    const obs$ = new Observable<number>((o) => {
      subscribe();
      o.next(1);
    });
    const { rerender, lastFrame } = render(<Show obs$={obs$} throttled />);
    await vi.waitFor(() => expect(lastFrame()).toBe('value 1'));
    rerender(<Show obs$={obs$} throttled />);
    rerender(<Show obs$={obs$} throttled />);
    await tick(20);
    expect(subscribe).toHaveBeenCalledTimes(1);
  });
});
