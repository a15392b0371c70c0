import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/model/formatBytes.js';
import { BoundedLineSplitter } from '../../src/platform/boundedLineSplitter.js';

const bytes = (text: string): Uint8Array => Buffer.from(text);

describe('BoundedLineSplitter', () => {
  it('splits on \\n across chunks, drops a trailing \\r, decodes a character split between chunks', () => {
    const lines = new BoundedLineSplitter(100);
    const euro = Buffer.from('€');
    expect(lines.push(bytes('ab\ncd'))).toEqual([{ line: 'ab' }]);
    expect(lines.push(bytes('e\r\n'))).toEqual([{ line: 'cde' }]);
    expect(lines.push(euro.subarray(0, 1))).toEqual([]);
    expect(lines.push(Buffer.concat([euro.subarray(1), bytes('\n\n')]))).toEqual([{ line: '€' }, { line: '' }]);
    expect(lines.end()).toEqual([]);
  });

  it('a line of exactly the cap is read; one byte more is reported once, with its size, at its newline', () => {
    const lines = new BoundedLineSplitter(4);
    expect(lines.push(bytes('abcd\nabcde\nf\n'))).toEqual([{ line: 'abcd' }, { tooLong: 5 }, { line: 'f' }]);
  });

  it('an over-long line is dropped as it arrives, then the next line is read as usual', () => {
    const lines = new BoundedLineSplitter(100);
    for (let i = 0; i < 1000; i++) expect(lines.push(bytes('x'.repeat(1000)))).toEqual([]);
    expect(lines.push(bytes('x\n{"cmd":"status"}\n'))).toEqual([{ tooLong: 1_000_001 }, { line: '{"cmd":"status"}' }]);
  });

  it('the last line without a newline ends with the stream (an over-long one too)', () => {
    const open = new BoundedLineSplitter(4);
    open.push(bytes('ab'));
    expect(open.end()).toEqual([{ line: 'ab' }]);
    const long = new BoundedLineSplitter(4);
    long.push(bytes('abcdef'));
    expect(long.end()).toEqual([{ tooLong: 6 }]);
  });

  it('formats sizes for messages', () => {
    expect([formatBytes(100), formatBytes(1536), formatBytes(2 * 1024 * 1024 + 30), formatBytes(1.5 * 1024 * 1024)]).toEqual(['100 bytes', '1.5 KiB', '2 MiB', '1.5 MiB']);
  });
});
