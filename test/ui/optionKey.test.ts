import { describe, expect, it } from 'vitest';
import { optionKey, type Option } from '../../src/hosts/ui/kit/OptionList.js';

const options: readonly Option<'a' | 's' | 'all' | 'r'>[] = [
  { value: 'a', label: 'Approve', letter: 'a' },
  { value: 's', label: 'Session', letter: 's' },
  { value: 'all', label: 'All', letter: 'A' },
  { value: 'r', label: 'Reject', letter: 'r' },
];
const none = { upArrow: false, downArrow: false, return: false };

describe('optionKey: the option-list keys of Qwen Code and Gemini CLI', () => {
  it('↑/↓ and k/j move the highlight, wrapping around', () => {
    expect(optionKey('', { ...none, downArrow: true }, options, 0)).toEqual({ kind: 'move', index: 1 });
    expect(optionKey('', { ...none, upArrow: true }, options, 0)).toEqual({ kind: 'move', index: 3 });
    expect(optionKey('j', none, options, 3)).toEqual({ kind: 'move', index: 0 });
    expect(optionKey('k', none, options, 2)).toEqual({ kind: 'move', index: 1 });
  });

  it('Enter chooses the highlighted option, a number chooses directly, a letter too (case counts)', () => {
    expect(optionKey('', { ...none, return: true }, options, 2)).toEqual({ kind: 'choose', index: 2 });
    expect(optionKey('4', none, options, 0)).toEqual({ kind: 'choose', index: 3 });
    expect(optionKey('A', none, options, 0)).toEqual({ kind: 'choose', index: 2 });
    expect(optionKey('a', none, options, 3)).toEqual({ kind: 'choose', index: 0 });
  });

  it('other keys, and numbers past the list, do nothing', () => {
    expect(optionKey('5', none, options, 0)).toBeUndefined();
    expect(optionKey('0', none, options, 0)).toBeUndefined();
    expect(optionKey('x', none, options, 0)).toBeUndefined();
    expect(optionKey('', none, options, 0)).toBeUndefined();
  });
});
