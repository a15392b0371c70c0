import { describe, expect, it } from 'vitest';
import { mirroredArguments, paramHeaderMismatch } from '../../../src/model/gateway/paramHeaders.js';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    nested: { type: 'object', properties: { on: { type: 'boolean', 'x-mcp-header': 'On' } } },
    list: { type: 'array', 'x-mcp-header': 'List' },
    level: { type: 'integer' },
  },
};
const headers = (sent: Record<string, string>) => (name: string) => sent[name];
const b64 = (text: string) => `=?base64?${btoa(text)}?=`;

describe('Mcp-Param headers against the body (decision 374)', () => {
  it('finds the primitive x-mcp-header arguments along the properties chain', () => {
    expect(mirroredArguments(schema)).toEqual([
      { path: ['region'], header: 'Region' },
      { path: ['count'], header: 'Count' },
      { path: ['nested', 'on'], header: 'On' },
    ]);
  });

  it('accepts headers that match, literal or Base64, and an absent argument without its header', () => {
    expect(paramHeaderMismatch(schema, { region: 'eu', count: 3, nested: { on: true } }, headers({ 'Mcp-Param-Region': b64('eu'), 'Mcp-Param-Count': '3', 'Mcp-Param-On': 'true' }))).toBeUndefined();
    expect(paramHeaderMismatch(schema, {}, headers({}))).toBeUndefined();
    // Not wrapped in both markers: the literal value.
    expect(paramHeaderMismatch(schema, { region: '=?base64?ZXU=' }, headers({ 'Mcp-Param-Region': '=?base64?ZXU=' }))).toBeUndefined();
  });

  it('refuses a mismatch, a missing header, bad Base64 padding or characters', () => {
    expect(paramHeaderMismatch(schema, { region: 'eu' }, headers({ 'Mcp-Param-Region': 'us' }))).toMatch(/does not match/);
    expect(paramHeaderMismatch(schema, { region: 'eu' }, headers({}))).toMatch(/missing/);
    expect(paramHeaderMismatch(schema, { region: 'Hello' }, headers({ 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }))).toMatch(/Base64/);
    expect(paramHeaderMismatch(schema, { region: 'Hello' }, headers({ 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }))).toMatch(/Base64/);
    expect(paramHeaderMismatch(schema, {}, headers({ 'Mcp-Param-Region': 'eu' }))).toMatch(/does not match/);
  });
});
