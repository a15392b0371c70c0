import { Box, type DOMElement } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { createRef } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { QualifiedTool, ServerStatus } from '../../src/model/report/status.js';
import { ScrollView } from '../../src/hosts/ui/kit/ScrollView.js';
import { Text } from '../../src/hosts/ui/kit/Text.js';
import { WINDOWED_ABOVE, WindowedRows } from '../../src/hosts/ui/kit/WindowedRows.js';
import { KEY, plain, server, waitFor } from './fakeLive.js';
import { appSession } from './appSession.js';

afterEach(cleanup);

/**
 * A server with 100,000 tools (decision 192): `/mcp NAME` and `/tools NAME` draw what is in view,
 * not the whole list — proved by what the frame is made of (the elements laid out and drawn, and
 * how many descriptions are read), not by timing: on every key the work is O(rows in view).
 */

const TOOLS = 100_000;

/** The tools, counting how often anything reads a description. */
function manyTools(count: number): { tools: QualifiedTool[]; reads: { n: number } } {
  const reads = { n: 0 };
  const tools = Array.from({ length: count }, (_, i): QualifiedTool => {
    const tool = { name: `mcp__big__tool${i}`, server: 'big', tool: `tool${i}`, trust: false } as QualifiedTool;
    Object.defineProperty(tool, 'description', {
      enumerable: true,
      get: () => {
        reads.n += 1;
        return `does thing ${i}`;
      },
    });
    return tool;
  });
  return { tools, reads };
}

/** Every element of Ink's tree under `node`. */
function elementsUnder(node: DOMElement | null): number {
  if (node === null) return 0;
  let count = 0;
  const stack: DOMElement[] = [node];
  while (stack.length > 0) {
    const at = stack.pop()!;
    count += 1;
    for (const child of at.childNodes) if (child.nodeName !== '#text') stack.push(child);
  }
  return count;
}

async function session(s: ServerStatus) {
  const root = createRef<DOMElement>();
  const ui = await appSession([s], {
    columns: 100,
    rows: 30,
    around: (app) => (
      <Box ref={root} flexDirection="column">
        {app}
      </Box>
    ),
  });
  return { ...ui, elements: () => elementsUnder(root.current) };
}

describe('a server with 100,000 tools', () => {
  it('/mcp NAME lays out only the rows in view, and a key reads only those rows', async () => {
    const { tools, reads } = manyTools(TOOLS);
    const s = await session(server('big', { tools }));
    s.type('/mcp big');
    await waitFor(() => expect(s.frame()).toContain('Tools (100000)'), { timeout: 20_000 });
    await waitFor(() => expect(s.frame()).toMatch(/↓ [\d,]+ more lines/));
    expect(s.frame()).toContain('tool0 ');
    expect(s.elements()).toBeLessThan(2_000);

    reads.n = 0;
    s.stdin.write(KEY.pageDown);
    await waitFor(() => expect(s.frame()).toMatch(/↑ \d+ lines above/));
    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('History'));
    expect(s.frame()).toContain(`tool${TOOLS - 1} `);
    expect(s.frame()).not.toContain('tool0 ');
    expect(s.elements()).toBeLessThan(2_000);
    expect(reads.n).toBeLessThan(1_000);
  });

  it('/tools NAME lists them all, a window at a time', async () => {
    const { tools } = manyTools(TOOLS);
    const s = await session(server('big', { tools }));
    s.type('/tools big');
    await waitFor(() => expect(s.frame()).toContain('100000 tools:'), { timeout: 20_000 });
    await waitFor(() => expect(s.frame()).toMatch(/↓ [\d,]+ more lines/));
    expect(s.frame()).toContain('mcp__big__tool0 ');
    expect(s.elements()).toBeLessThan(2_000);
    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain(`mcp__big__tool${TOOLS - 1} `));
    expect(s.frame()).toMatch(/↑ [\d,]+ lines above/);
    expect(s.elements()).toBeLessThan(2_000);
  });
});

describe('WindowedRows', () => {
  it('a key draws the rows in view and a few around them, whatever the length of the list', async () => {
    const lines = Array.from({ length: TOOLS }, (_, i) => `line ${i}`);
    const drawn: number[] = [];
    const row = (line: string, i: number) => {
      drawn.push(i);
      return <Text key={i}>{line}</Text>;
    };
    const ui = render(
      <Box height={20} flexDirection="column">
        <ScrollView keys={{ priority: 0 }}>
          <Text>a title above the list</Text>
          <WindowedRows items={lines} row={row} />
        </ScrollView>
      </Box>,
    );
    await waitFor(() => expect(plain(ui.lastFrame())).toMatch(/↓ [\d,]+ more lines/));
    expect(plain(ui.lastFrame())).toContain('line 0');
    drawn.length = 0;
    ui.stdin.write(KEY.pageDown);
    await waitFor(() => expect(plain(ui.lastFrame())).toContain('line 30'));
    // One page of 19 rows, 10 either side, over the renders a key takes: nothing like 100,000.
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(4 * (19 + 20));
    expect(Math.min(...drawn)).toBeGreaterThan(0);
    drawn.length = 0;
    ui.stdin.write(KEY.end);
    await waitFor(() => expect(plain(ui.lastFrame())).toContain(`line ${TOOLS - 1}`));
    expect(drawn.length).toBeLessThan(4 * (19 + 20));
  });

  it(`a list of at most ${WINDOWED_ABOVE} items is drawn whole, wrapping as before`, () => {
    const ui = render(
      <Box width={20} flexDirection="column">
        <ScrollView>
          <WindowedRows items={['a long line that wraps onto more rows', 'b']} row={(line, i) => <Text key={i}>{line}</Text>} />
        </ScrollView>
      </Box>,
    );
    expect(plain(ui.lastFrame()).split('\n').length).toBeGreaterThan(2);
  });
});
