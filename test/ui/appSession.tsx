import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { expect } from 'vitest';
import type { ServerStatus } from '../../src/model/report/status.js';
import { App } from '../../src/hosts/ui/App.js';
import { fakeLive, KEY, plain, waitFor } from './fakeLive.js';

export interface AppSessionOptions {
  columns?: number;
  rows?: number;
  /** Renders the App inside another element (a Box with a ref, say). */
  around?: (app: ReactElement) => ReactElement;
}

export type AppSession = ReturnType<typeof fakeLive> &
  Pick<ReturnType<typeof render>, 'stdin' | 'stdout' | 'stderr' | 'lastFrame' | 'frames' | 'rerender' | 'unmount' | 'cleanup'> & {
    frame: () => string;
    type: (text: string) => void;
  };

/**
 * The interactive App on a fake session of `servers`, in a terminal of `columns` × `rows`
 * (ink-testing-library's stdout has no size of its own), once the session is ready and the
 * summary line shows. `type(text)` types a line and Enter; `frame()` is the last frame, plain.
 */
export async function appSession(servers: readonly ServerStatus[], { columns = 80, rows = 24, around = (app) => app }: AppSessionOptions = {}): Promise<AppSession> {
  const fake = fakeLive({ servers });
  const ui = render(around(<App live={fake.live} onExit={() => undefined} />));
  Object.defineProperty(ui.stdout, 'columns', { value: columns, configurable: true });
  Object.defineProperty(ui.stdout, 'rows', { value: rows, configurable: true });
  ui.stdout.emit('resize');
  fake.events.next({ type: 'ready', ts: Date.now() });
  const frame = () => plain(ui.lastFrame());
  const type = (text: string) => {
    for (const ch of text) ui.stdin.write(ch);
    ui.stdin.write(KEY.enter);
  };
  await waitFor(() => expect(frame()).toContain('connected ·'));
  return { ...fake, ...ui, frame, type };
}
