import { describe, expect, it } from 'vitest';
import { exposedNameOf } from '../../../src/model/gateway/gatewayView.js';
import { libraryNameOf } from '../../../src/model/tools/toolNameMessages.js';

const tools = [
  { name: 'mcp__clock__now', tool: 'now' },
  { name: 'mcp__a__echo', tool: 'echo' },
  { name: 'mcp__b__echo', tool: 'echo' },
];

describe('the other naming of a listed tool (decision 322)', () => {
  it("libraryNameOf: the gateway's server__tool or a tool's own name, to the qualified name a session calls", () => {
    expect(libraryNameOf('clock__now', tools)).toBe('mcp__clock__now');
    expect(libraryNameOf('now', tools)).toBe('mcp__clock__now');
    // Two servers list echo: no guess.
    expect(libraryNameOf('echo', tools)).toBeUndefined();
    expect(libraryNameOf('clock__later', tools)).toBeUndefined();
    expect(libraryNameOf('mcp__clock__later', tools)).toBeUndefined();
  });

  it("exposedNameOf: a qualified or server__tool name, to the name this gateway's view lists", () => {
    const server = new Map([['clock__now', { qualified: 'mcp__clock__now', server: 'clock' }]]);
    expect(exposedNameOf('mcp__clock__now', server)).toBe('clock__now');
    expect(exposedNameOf('clock__now', server)).toBeUndefined();
    expect(exposedNameOf('mcp__clock__later', server)).toBeUndefined();
    const original = new Map([['now', { qualified: 'mcp__clock__now', server: 'clock' }]]);
    expect(exposedNameOf('clock__now', original)).toBe('now');
    expect(exposedNameOf('mcp__clock__now', original)).toBe('now');
    expect(exposedNameOf('now', original)).toBeUndefined();
  });
});
