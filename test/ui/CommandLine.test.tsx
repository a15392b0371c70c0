import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommandLine } from '../../src/hosts/ui/commands/CommandLine.js';
import { completeCommandLine } from '../../src/hosts/ui/commands/completeCommandLine.js';
import { KEY, plain, tick, waitFor } from './fakeLive.js';

afterEach(cleanup);

function line(props: Partial<Parameters<typeof CommandLine>[0]> = {}) {
  const onSubmit = vi.fn<(line: string) => void>();
  const ui = render(
    <CommandLine
      onSubmit={onSubmit}
      complete={(v) => completeCommandLine(v, { servers: ['alpha', 'alpine'], tools: ['mcp__alpha__echo'] })}
      {...props}
    />,
  );
  const frame = () => plain(ui.lastFrame());
  const type = async (...keys: string[]) => {
    for (const k of keys) {
      ui.stdin.write(k);
      await tick(5);
    }
  };
  return { ...ui, onSubmit, frame, type };
}

describe('CommandLine', () => {
  it('edits and submits a line', async () => {
    const l = line();
    await tick();
    await l.type('/', 'm', 'c', 'x', KEY.backspace, 'p');
    await waitFor(() => expect(l.frame()).toContain('› /mcp'));
    await l.type(KEY.enter);
    expect(l.onSubmit.mock.calls).toEqual([['/mcp']]);
    await waitFor(() => expect(l.frame()).toContain('type / for commands'));
  });

  it('inserts at the cursor moved with ←/→', async () => {
    const l = line();
    await tick();
    await l.type('/', 'm', 'p', KEY.left, 'c', KEY.right, ' ', 'a', KEY.enter);
    expect(l.onSubmit.mock.calls).toEqual([['/mcp a']]);
  });

  it('moves the cursor to either end with Home/End while a line is typed', async () => {
    const l = line();
    await tick();
    await l.type('mcp a', KEY.home, '/', KEY.end, 'lpha', KEY.enter);
    expect(l.onSubmit.mock.calls).toEqual([['/mcp alpha']]);
  });

  it('leaves Enter and arrows alone while empty', async () => {
    const l = line();
    await tick();
    await l.type(KEY.enter, KEY.up, KEY.down);
    expect(l.onSubmit).not.toHaveBeenCalled();
    expect(l.frame()).toContain('type / for commands');
  });

  it('recalls earlier lines with ↑ and gives the draft back with ↓', async () => {
    const l = line();
    await tick();
    await l.type('/help', KEY.enter, '/reload', KEY.enter, '/');
    await l.type(KEY.up);
    await waitFor(() => expect(l.frame()).toContain('› /reload'));
    await l.type(KEY.up);
    await waitFor(() => expect(l.frame()).toContain('› /help'));
    await l.type(KEY.down, KEY.down);
    await waitFor(() => expect(l.frame()).toMatch(/› \/ *$/m));
    await l.type(KEY.up, KEY.up, KEY.enter);
    expect(l.onSubmit.mock.calls).toEqual([['/help'], ['/reload'], ['/help']]);
  });

  it('completes with Tab and lists the candidates', async () => {
    const l = line();
    await tick();
    await l.type('/rec', KEY.tab, 'al', KEY.tab);
    await waitFor(() => expect(l.frame()).toContain('› /reconnect alp'));
    expect(l.frame()).toContain('alpha  alpine');
    await l.type('h', KEY.tab);
    await waitFor(() => expect(l.frame()).not.toContain('alpine'));
    await l.type(KEY.enter);
    expect(l.onSubmit.mock.calls).toEqual([['/reconnect alpha']]);
  });

  it('treats line breaks in pasted text as Enter', async () => {
    const l = line();
    await tick();
    l.stdin.write('/reload\r/mcp al');
    await waitFor(() => expect(l.frame()).toContain('› /mcp al'));
    expect(l.onSubmit.mock.calls).toEqual([['/reload']]);
  });

  it('Esc clears the line', async () => {
    const l = line();
    await tick();
    await l.type('/quit', KEY.escape);
    await waitFor(() => expect(l.frame()).toContain('type / for commands'));
    await l.type(KEY.enter);
    expect(l.onSubmit).not.toHaveBeenCalled();
  });

  it('takes no keys while inactive', async () => {
    const l = line({ isActive: false });
    await tick();
    await l.type('/quit', KEY.enter);
    expect(l.onSubmit).not.toHaveBeenCalled();
    expect(l.frame()).not.toContain('/quit');
  });
});
