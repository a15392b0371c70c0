import { describe, expect, it } from 'vitest';
import { filterTools } from '../../../src/model/tools/toolNames.js';

/**
 * Decision 81: `includeTools` / `excludeTools` entries written `name(...)`. The peers' rule
 * (Gemini CLI and Qwen Code `isEnabled`, packages/core/src/tools/mcp-client.ts) is
 * `entry === name || entry.startsWith(`${name}(`)` for `includeTools`; their `excludeTools`
 * matches exact names only. mcp-live applies the same rule to both lists (an exclusion written
 * `slow()` means the tool `slow`), so each test says which side it restates.
 */

const tools = ['one', 'two', 'three', 'four', 'threefold'].map((name) => ({ name }));
const names = (view: Parameters<typeof filterTools>[1]) => filterTools(tools, view).map((t) => t.name);

describe('includeTools / excludeTools entries written name(...)', () => {
  it('Gemini CLI isEnabled: includeTools "myTool()" includes myTool (“in the include list with parentheses”)', () => {
    expect(filterTools([{ name: 'myTool' }], { includeTools: ['myTool()'] })).toEqual([{ name: 'myTool' }]);
  });

  it('Qwen Code / Gemini CLI: includeTools ["three()", "four(args)"] keeps three and four — not 0 tools', () => {
    expect(names({ includeTools: ['three()', 'four(args)'] })).toEqual(['three', 'four']);
  });

  it('the peers’ rule is a name followed by "(": "three()" names neither "thre" nor "threefold"', () => {
    const more = [...tools, { name: 'thre' }];
    expect(filterTools(more, { includeTools: ['three()'] }).map((t) => t.name)).toEqual(['three']);
  });

  it('Gemini CLI isEnabled: an exact name still matches, and the include list without the tool leaves it out', () => {
    expect(names({ includeTools: ['one', 'anotherTool'] })).toEqual(['one']);
  });

  it('mcp-live: excludeTools "three()" excludes three (the peers compare exclusions exactly; mcp-live reads both lists alike)', () => {
    expect(names({ excludeTools: ['three()'] })).toEqual(['one', 'two', 'four', 'threefold']);
    expect(names({ excludeTools: ['four(args)'] })).toEqual(['one', 'two', 'three', 'threefold']);
  });

  it('Gemini CLI isEnabled: excludeTools takes precedence over includeTools, in either form', () => {
    expect(names({ includeTools: ['one', 'two()'], excludeTools: ['two'] })).toEqual(['one']);
    expect(names({ includeTools: ['one', 'two'], excludeTools: ['two()'] })).toEqual(['one']);
  });

  it('a name with a "(" of its own is matched by the same rule (every prefix a "(" follows)', () => {
    const odd = [{ name: 'f(x' }, { name: 'f' }, { name: 'g' }];
    expect(filterTools(odd, { includeTools: ['f(x(y)'] }).map((t) => t.name)).toEqual(['f(x', 'f']);
  });
});
