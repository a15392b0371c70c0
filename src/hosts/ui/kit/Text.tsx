import { Text as InkText, type TextProps } from 'ink';
import { Children, type ReactNode } from 'react';
import { terminalSafe } from '../../../model/terminalText.js';

/**
 * The UI's `Text`: Ink's, with every string child rendered terminal-safe (decision 164). Ink
 * passes a string's `\r`, ESC sequences and bidi controls to the terminal as they are, and every
 * string on screen goes through a `Text`, so this is the one boundary where a file's, a server's
 * or a user's text becomes visible escapes instead of effects. Line breaks stay (instructions,
 * errors, descriptions); a one-line value (an arg, a name) is escaped where it is put in its row,
 * with its `\n` shown (`terminalSafe(value)`), since only there is it known to be one line.
 * Components import `Text` from here, never from `ink` (an eslint rule says so).
 */
export function Text({ children, ...props }: TextProps) {
  return <InkText {...props}>{Children.map(children, safeChild)}</InkText>;
}

function safeChild(child: ReactNode): ReactNode {
  return typeof child === 'string' ? terminalSafe(child, { multiline: true }) : child;
}
