import { describe, expect, it } from 'vitest';
import { SETTINGS_SCHEMA, classifyChange, requiresRestart } from '../../src/model/settings/restartRequired.js';

describe('requiresRestart', () => {
  it.each([
    ['mcpServers', false],
    ['mcpServers.fs.command', false],
    ['mcpServers.mcp.serverCommand', false],
    ['mcp', true],
    ['mcp.serverCommand', true],
    ['mcp.allowed', false],
    ['mcp.excluded', false],
    ['mcp.foo', true],
    ['mcp.foo.bar', true],
    ['ui.theme', false],
    ['security.folderTrust.enabled', false],
    ['mcpServersX', false],
    ['toString', false],
    ['__proto__', false],
  ])('%s → %s', (key, expected) => {
    expect(requiresRestart(key)).toBe(expected);
  });

  it('keeps the schema as data', () => {
    expect(Object.keys(SETTINGS_SCHEMA).sort()).toEqual(['mcp', 'mcp.allowed', 'mcp.excluded', 'mcp.serverCommand', 'mcpServers']);
  });
});

describe('classifyChange', () => {
  it.each([
    [[], { hot: true, restartKeys: [] }],
    [['ui.theme'], { hot: true, restartKeys: [] }],
    [['mcp.serverCommand'], { hot: false, restartKeys: ['mcp.serverCommand'] }],
    [['mcp.serverCommand', 'mcp.foo'], { hot: false, restartKeys: ['mcp.serverCommand', 'mcp.foo'] }],
    [['mcp.serverCommand', 'mcpServers.x.command'], { hot: true, restartKeys: ['mcp.serverCommand'] }],
    [['mcp.serverCommand', 'mcp.allowed'], { hot: true, restartKeys: ['mcp.serverCommand'] }],
    [['mcp.serverCommand', 'ui.theme'], { hot: true, restartKeys: ['mcp.serverCommand'] }],
  ])('%j → %j', (keys, expected) => {
    expect(classifyChange(keys)).toEqual(expected);
  });
});
