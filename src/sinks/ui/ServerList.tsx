import { Box, Text } from 'ink';
import { useRef } from 'react';
import type { ServerStatus } from '../../model/status.js';
import { countServers, listCounts, plural, stateIcon, statusText } from './serverSummary.js';
import { KEY_PRIORITY, useKeys, useSyncState } from './keys.js';
import { ScrollView } from './ScrollView.js';
import { scrollStep } from './scrollWindow.js';
import { Spinner } from './Spinner.js';

export interface ServerListProps {
  servers: readonly ServerStatus[];
  /** Whether ↑ ↓ Enter may go to the list (a typed command line and a dialog ask first anyway). */
  isActive?: boolean;
  /** Enter on a row. */
  onOpen?: (name: string) => void;
  /** Before the first pass an empty list means "not read yet", not "none configured". */
  starting?: boolean;
}

/**
 * One row per server — selection marker, state icon, name, scope, then tool/prompt counts for a
 * connected server or the reason in words for any other — and a footer that counts only real
 * failures as errors (SPEC §9: approval-skipped servers are not failures).
 *
 * ↑/↓ move the selection, PgUp/PgDn by a screenful, Home/End to the ends, Enter opens it. When the
 * rows do not all fit, they scroll so that the selected one is always in view; the footer stays.
 */
export function ServerList({ servers, isActive = true, onOpen, starting = false }: ServerListProps) {
  // Selection follows the name, so a server added above it does not move the cursor.
  const [selectedName, setSelectedName, selectedRef] = useSyncState<string | undefined>(undefined);
  const indexOf = (name: string | undefined) => Math.max(0, servers.findIndex((s) => s.name === name));
  const selected = indexOf(selectedName);
  // Rows in view, for paging (each server is one row).
  const page = useRef(1);

  useKeys(
    (_input, key) => {
      if (servers.length === 0) return false;
      const at = indexOf(selectedRef.current);
      // The selection moves as a view scrolls: a line, a page, to either end.
      const step = scrollStep(key, page.current);
      if (step !== undefined) setSelectedName(servers[Math.min(servers.length - 1, Math.max(0, at + step))]?.name);
      else if (key.return) {
        const name = servers[at]?.name;
        if (name !== undefined) onOpen?.(name);
      } else return false;
      return true;
    },
    { priority: KEY_PRIORITY.list, isActive },
  );

  if (servers.length === 0) {
    return (
      <Box flexDirection="column">
        {starting ? (
          <Text>
            <Spinner /> <Text color="gray">reading settings…</Text>
          </Text>
        ) : (
          <Text color="gray">No MCP servers configured.</Text>
        )}
      </Box>
    );
  }

  const nameWidth = Math.max(...servers.map((s) => s.name.length)) + 2;
  const counts = countServers(servers);
  return (
    <Box flexDirection="column">
      <ScrollView reveal={[selected, selected + 1]} onViewport={(rows) => (page.current = rows)}>
        {servers.map((s, i) => (
          <ServerRow key={s.name} server={s} selected={isActive && i === selected} nameWidth={nameWidth} />
        ))}
      </ScrollView>
      <Box marginTop={1} flexDirection="column" flexShrink={0}>
        <Text>
          <Text color="green">{counts.connected} connected</Text>
          {' · '}
          <Text color={counts.needApproval > 0 ? 'yellow' : undefined}>{counts.needApproval} need approval</Text>
          {' · '}
          <Text color={counts.errors > 0 ? 'red' : undefined}>{plural(counts.errors, 'error')}</Text>
        </Text>
        {counts.firstError !== undefined && (
          <Text color="gray">view error logs with /mcp {counts.firstError}</Text>
        )}
      </Box>
    </Box>
  );
}

function ServerRow({ server: s, selected, nameWidth }: { server: ServerStatus; selected: boolean; nameWidth: number }) {
  const { icon, color } = stateIcon(s);
  const text = statusText(s);
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        <Text color="cyan">{selected ? '›' : ' '}</Text>
      </Box>
      <Box width={2} flexShrink={0}>
        <Text color={color}>{icon}</Text>
      </Box>
      <Box width={nameWidth} flexShrink={0}>
        <Text bold={selected} inverse={selected}>
          {s.name}
        </Text>
      </Box>
      <Box width={11} flexShrink={0}>
        <Text color="gray">{s.scope}</Text>
      </Box>
      {s.state === 'connected' ? (
        <Text>{listCounts(s)}</Text>
      ) : s.state === 'connecting' ? (
        <Text>
          <Spinner /> <Text color="yellow">connecting</Text>
        </Text>
      ) : (
        // The first line only, cut at the edge (one row per server, so the selection can be kept
        // in view): a stack or a stderr dump belongs to the detail view.
        <Text color={s.state === 'error' ? 'red' : 'gray'} wrap="truncate-end">
          {text?.split('\n')[0]}
        </Text>
      )}
    </Box>
  );
}
