import { Box } from 'ink';
import { Text } from '../kit/Text.js';
import type { SurfaceChange } from '../../../model/tools/surfaceTypes.js';
import { terminalSafe } from '../../../model/terminalText.js';

/** The width of the `before` / `now` labels, and a space. */
const LABEL_WIDTH = 8;

/**
 * What changed about a server's tools since the user approved them (decision 197), one block a
 * change: a marker (`+` added, `-` removed, `~` changed), the item and what changed, then its
 * text before and now — an added tool's description, the canonical JSON of a schema or of the
 * annotations. The texts arrive on one line, escaped and cut (decision 212); they still pass
 * `Text`, where a text that is safe already stays as it is, and wrap inside their own column, so
 * a long one cannot look like a change row. The cap's last entry (`name` '', decision 213) is the
 * line that counts the rest.
 */
export function SurfaceDiff({ changes }: { changes: readonly SurfaceChange[] }) {
  return (
    <Box flexDirection="column">
      {changes.map((c, i) => (
        <SurfaceChangeRow key={i} change={c} />
      ))}
    </Box>
  );
}

function SurfaceChangeRow({ change: c }: { change: SurfaceChange }) {
  if (c.kind !== 'instructions' && c.name === '') {
    return <Text color="gray">{c.after ?? c.before ?? ''}</Text>;
  }
  const { marker, color } = MARKERS[c.change];
  // Added: what it says now; removed: what it said; changed: both.
  const sides = c.change === 'added' ? (['now'] as const) : c.change === 'removed' ? (['before'] as const) : (['before', 'now'] as const);
  return (
    <Box flexDirection="column">
      <Text wrap="wrap">
        <Text color={color} bold>
          {marker} {surfaceItem(c)}
        </Text>
        <Text color={color}>{`: ${changeWords(c.change)}`}</Text>
      </Text>
      {sides.map((side) => {
        const text = side === 'now' ? c.after : c.before;
        // An added or removed item without a description has nothing more to show.
        if (sides.length === 1 && (text === undefined || text === '')) return null;
        return (
          <Box key={side} paddingLeft={4}>
            <Box width={LABEL_WIDTH} flexShrink={0}>
              <Text color="gray">{`${side}:`}</Text>
            </Box>
            {text === undefined || text === '' ? <Text color="gray">(none)</Text> : <Text wrap="wrap">{text}</Text>}
          </Box>
        );
      })}
    </Box>
  );
}

const MARKERS: Readonly<Record<SurfaceChange['change'], { marker: string; color: 'green' | 'red' | 'yellow' }>> = {
  added: { marker: '+', color: 'green' },
  removed: { marker: '-', color: 'red' },
  description: { marker: '~', color: 'yellow' },
  schema: { marker: '~', color: 'yellow' },
  annotations: { marker: '~', color: 'yellow' },
  definition: { marker: '~', color: 'yellow' },
};

/** `tool create_issue`, `prompt greet`, `instructions`: what a change is about, its name on one line. */
export function surfaceItem(c: Pick<SurfaceChange, 'kind' | 'name'>): string {
  return c.kind === 'instructions' ? 'instructions' : `${c.kind} ${terminalSafe(c.name)}`;
}

/** `added`, `removed`, `description changed`, `schema changed`, `annotations changed`. */
export function changeWords(change: SurfaceChange['change']): string {
  return change === 'added' || change === 'removed' ? change : `${change} changed`;
}

/**
 * What changed about one tool, for the detail view's withheld row: `new since you approved it`,
 * `description changed`, `description and schema changed`; `definition changed` when the diff
 * is not known (decided already this session, or asked for by another surface).
 */
export function withheldWhy(tool: string, changes: readonly SurfaceChange[] | undefined): string {
  const own = (changes ?? []).filter((c) => c.kind === 'tool' && c.name === tool).map((c) => c.change);
  if (own.includes('added')) return 'new since you approved it';
  const aspects = own.filter((c) => c !== 'removed');
  if (aspects.length === 0) return 'definition changed';
  const list = aspects.length === 1 ? aspects[0]! : `${aspects.slice(0, -1).join(', ')} and ${aspects[aspects.length - 1]!}`;
  return `${list} changed`;
}
