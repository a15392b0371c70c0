import { Box } from 'ink';
import { terminalSafe } from '../../../model/terminalText.js';
import { KEY_PRIORITY, useKeys } from '../kit/keys.js';
import { Text } from '../kit/Text.js';

export interface TrustQuestionProps {
  /** The session's folder. */
  folder: string;
  /** What could change what runs, as the held servers' reason names it (`node_modules, .npmrc`). */
  why: string;
  /** The servers held for it. */
  servers: readonly string[];
  /** `y`: true; `n` or Esc: false. */
  onAnswer: (yes: boolean) => void;
}

/**
 * The one question of a folder whose files could change what the user's own servers run
 * (decision 304): asked once in a session, for every held server at once; `y` trusts the folder
 * (as `/trust` does), `n` or Esc leaves them held — `/trust` still works later. While it shows it
 * takes every key but Ctrl-C, like the approval dialog.
 */
export function TrustQuestion({ folder, why, servers, onAnswer }: TrustQuestionProps) {
  useKeys(
    (input, key) => {
      if (input === 'y' || input === 'Y') onAnswer(true);
      else if (input === 'n' || input === 'N' || key.escape) onAnswer(false);
      return true;
    },
    { priority: KEY_PRIORITY.dialog },
  );
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        This folder has files that can change what your servers run: {terminalSafe(why)}. Trust it? <Text bold>y/n</Text>
      </Text>
      <Text color="gray">
        {terminalSafe(folder)} · held until then: {servers.map((name) => terminalSafe(name)).join(', ')}
      </Text>
    </Box>
  );
}
