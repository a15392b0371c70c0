import { Box } from 'ink';
import { Text } from '../kit/Text.js';
import type { EntryFieldChange } from '../../../model/admission/entryChanges.js';
import { terminalSafe } from '../../../model/terminalText.js';
import { reviewLineRisk } from './reviewLineRisk.js';

/**
 * The fields of an entry that changed since the user approved it (decision 331), one row each:
 * its label, then what it was and what it is now (`before → now`; `(none)` for a field added or
 * gone). The values are the review's — references kept, a user-scope entry's secrets masked as
 * in the rest of the dialog — each on one line (decision 164). A risky new value is marked as
 * the entry's own line would be.
 */
export function EntryDiff({ changes, width }: { changes: readonly EntryFieldChange[]; width: number }) {
  return (
    <Box flexDirection="column">
      {changes.map((c, i) => {
        const risky = c.after !== undefined && reviewLineRisk({ label: c.label, value: c.after }) !== undefined;
        return (
          <Box key={i}>
            <Box width={width} flexShrink={0}>
              <Text color={risky ? 'yellow' : 'gray'} bold={risky}>
                {risky ? '! ' : '  '}
                {c.label}
              </Text>
            </Box>
            <Text wrap="wrap">
              <Text color={c.before === undefined ? 'gray' : 'red'}>{c.before === undefined ? '(none)' : terminalSafe(c.before)}</Text>
              <Text color="gray">{' → '}</Text>
              <Text color={c.after === undefined ? 'gray' : 'green'}>{c.after === undefined ? '(none)' : terminalSafe(c.after)}</Text>
            </Text>
          </Box>
        );
      })}
    </Box>
  );
}
