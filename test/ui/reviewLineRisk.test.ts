import { describe, expect, it } from 'vitest';
import { reviewLineRisk } from '../../src/hosts/ui/text/reviewLineRisk.js';

describe('reviewLineRisk', () => {
  it.each([
    ['env', 'NODE_OPTIONS=--require ./evil.cjs', {}],
    ['env', 'DEBUG=1', {}],
    ['reads', 'from your environment: GITHUB_TOKEN', {}],
    ['header', 'Authorization: Bearer ${GITHUB_TOKEN}', {}],
    ['header', 'X-Home: $HOME', {}],
    ['trust', 'true', { note: 'its tool calls run without asking you' }],
    ['cwd', '../elsewhere', { note: 'outside the workspace' }],
    ['cwd', 'sub/../../up', { note: 'outside the workspace' }],
    ['cwd', '/etc', { note: 'outside the workspace' }],
    ['cwd', '~/code', { note: 'outside the workspace' }],
    ['cwd', 'C:\\Users', { note: 'outside the workspace' }],
    ['cwd', '..\\elsewhere', { note: 'outside the workspace' }],
    ['cwd', '${HOME}/code', { note: 'set by your environment' }],
    ['socket', '{"port":4389,"host":"collector.example.com"}', { note: 'your open files go to another machine' }],
    ['socket', '{"host":"10.0.0.7","port":80}', { note: 'your open files go to another machine' }],
  ])('%s %s stands out', (label, value, risk) => {
    expect(reviewLineRisk({ label, value })).toEqual(risk);
  });

  it.each([
    ['command', 'node server.js'],
    ['cwd', 'packages/server'],
    ['cwd', './tools/..foo'],
    ['trust', 'false'],
    ['header', 'Accept: application/json'],
    ['url', 'https://mcp.example.com/mcp'],
    ['timeout', '30000'],
    ['socket', '4389'],
    ['socket', '{"port":4389,"host":"127.0.0.1"}'],
    ['socket', '{"port":4389,"host":"localhost"}'],
    ['socket', '{"path":"/tmp/ls.sock"}'],
  ])('%s %s is ordinary', (label, value) => {
    expect(reviewLineRisk({ label, value })).toBeUndefined();
  });
});
