import { Box, type Key } from 'ink';
import { Text } from './Text.js';

/** One choice of an {@link OptionList}: its words and the letter that picks it at once. */
export interface Option<T extends string> {
  value: T;
  label: string;
  letter: string;
}

/** What a key does to an option list: move the highlight, or choose an option (by index). */
export type OptionKey = { kind: 'move'; index: number } | { kind: 'choose'; index: number };

/**
 * The option-list keys of Qwen Code's and Gemini CLI's confirmations: ↑/↓ (and k/j) move the
 * highlight, wrapping around; Enter chooses the highlighted option; a number chooses that option
 * directly; and here each option's letter chooses it too. Undefined for any other key.
 */
export function optionKey<T extends string>(
  input: string,
  key: Pick<Key, 'upArrow' | 'downArrow' | 'return'>,
  options: readonly Option<T>[],
  highlighted: number,
): OptionKey | undefined {
  const n = options.length;
  if (key.upArrow || input === 'k') return { kind: 'move', index: (highlighted - 1 + n) % n };
  if (key.downArrow || input === 'j') return { kind: 'move', index: (highlighted + 1) % n };
  if (key.return) return { kind: 'choose', index: highlighted };
  const numbered = /^[1-9]$/.test(input) ? Number(input) - 1 : -1;
  if (numbered >= 0 && numbered < n) return { kind: 'choose', index: numbered };
  const lettered = options.findIndex((o) => o.letter === input);
  return lettered >= 0 ? { kind: 'choose', index: lettered } : undefined;
}

/**
 * The options, numbered, the highlighted one marked "›" (as the server list marks its selection)
 * and bold; each option's letter in grey after it.
 */
export function OptionList<T extends string>({ options, highlighted }: { options: readonly Option<T>[]; highlighted: number }) {
  // The letters line up in a column after the longest label.
  const width = Math.max(...options.map((o) => o.label.length)) + 5;
  return (
    <Box flexDirection="column">
      {options.map((o, i) => {
        const on = i === highlighted;
        return (
          <Box key={o.value}>
            <Box width={2} flexShrink={0}>
              <Text color="cyan">{on ? '›' : ' '}</Text>
            </Box>
            <Box width={width} flexShrink={0}>
              <Text bold={on} color={on ? 'cyan' : undefined}>
                {i + 1}. {o.label}
              </Text>
            </Box>
            <Text color="gray">{o.letter}</Text>
          </Box>
        );
      })}
    </Box>
  );
}
