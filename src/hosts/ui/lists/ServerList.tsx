import { Box } from 'ink';
import { Text } from '../kit/Text.js';
import { useEffect, useRef, useState } from 'react';
import type { ServerKind } from '../../../model/types.js';
import type { ServerStatus } from '../../../model/report/status.js';
import { plural } from '../../../model/report/messages.js';
import {
  countServers,
  detailCommand,
  displayName,
  foldRemoved,
  isLanguageServer,
  languageServerFacts,
  listCounts,
  listsTools,
  stateIcon,
  statusText,
  withheldCount,
} from '../text/serverSummary.js';
import { KEY_PRIORITY, useKeys, useSyncState } from '../kit/keys.js';
import { ScrollView } from '../kit/ScrollView.js';
import { scrollStep } from '../kit/scrollWindow.js';
import { Spinner } from '../kit/Spinner.js';
import { wakeAt } from '../kit/wakeAt.js';
import { terminalSafe } from '../../../model/terminalText.js';

export interface ServerListProps {
  servers: readonly ServerStatus[];
  /** Whether ↑ ↓ Enter may go to the list (a typed command line and a dialog ask first anyway). */
  isActive?: boolean;
  /** Enter on a row. */
  onOpen?: (name: string) => void;
  /** Before the first pass an empty list means "not read yet", not "none configured". */
  starting?: boolean;
  /** Which kind it lists (`/mcp`: MCP servers, `/lsp`: language servers); default both. */
  show?: 'all' | ServerKind;
  /** How long a removed server keeps its own row (decision 262). */
  removedCollapseMs?: number;
}

/**
 * One row per server — selection marker, state icon, name, scope, then tool/prompt counts for a
 * connected server (and how many of its changed tools are withheld, decision 197), the counts and
 * why it has no process for an idle one (decision 196), or the reason in words for any other — and
 * a footer that counts idle servers with the connected ones (`3 connected (1 idle)`) and only real
 * failures as errors (docs/contract.md, "Interactive session": a server waiting for approval is not
 * a failure). Language servers (decision 157) follow the MCP servers under a title of their own, by
 * their own names, with their languages (and, connected, their capability count and pid) after the
 * state.
 *
 * A removed server keeps its row for a minute, then joins one line "removed: a, b" under the
 * list (decision 262); `/mcp NAME` still shows it.
 *
 * ↑/↓ move the selection, PgUp/PgDn by a screenful, Home/End to the ends, Enter opens it. When the
 * rows do not all fit, they scroll so that the selected one is always in view; the footer stays.
 */
export function ServerList({ servers: listed, isActive = true, onOpen, starting = false, show = 'all', removedCollapseMs }: ServerListProps) {
  const { rows: all, folded, nextAt } = foldRemoved(listed, Date.now(), removedCollapseMs);
  useRenderAt(nextAt);
  const mcp = show === 'lsp' ? [] : all.filter((s) => !isLanguageServer(s));
  const lsp = show === 'mcp' ? [] : all.filter(isLanguageServer);
  const gone = folded.filter((s) => show === 'all' || isLanguageServer(s) === (show === 'lsp'));
  // The order of the rows, which ↑ ↓ follow: MCP servers, then language servers.
  const servers = [...mcp, ...lsp];
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

  if (servers.length === 0 && gone.length === 0) {
    return (
      <Box flexDirection="column">
        {starting ? (
          <Text>
            <Spinner /> <Text color="gray">reading settings…</Text>
          </Text>
        ) : (
          <Text color="gray">{show === 'lsp' ? 'No language servers configured.' : 'No MCP servers configured.'}</Text>
        )}
      </Box>
    );
  }

  // A fold, not Math.max(...names): a spread of 100,000 arguments overflows the stack.
  const nameWidth = servers.reduce((width, s) => Math.max(width, terminalSafe(displayName(s)).length), 0) + 2;
  const counts = countServers(servers);
  // Content rows before the language servers: the MCP rows (or the line saying there are none),
  // then the title, a blank line above it.
  const mcpRows = show === 'lsp' ? 0 : Math.max(1, mcp.length);
  const titleRow = mcpRows === 0 ? 0 : mcpRows + 1;
  const rowOf = (i: number) => (i < mcp.length ? i : titleRow + 1 + i - mcp.length);
  // The first language server is revealed with its title.
  const reveal = [selected === mcp.length && lsp.length > 0 ? titleRow : rowOf(selected), rowOf(selected) + 1] as const;
  const row = (s: ServerStatus, i: number) => (
    <ServerRow key={s.name} server={s} selected={isActive && i === selected} nameWidth={nameWidth} />
  );
  return (
    <Box flexDirection="column">
      <ScrollView reveal={reveal} onViewport={(rows) => (page.current = rows)}>
        {mcpRows > 0 && mcp.length === 0 && <Text color="gray">No MCP servers configured.</Text>}
        {mcp.map(row)}
        {lsp.length > 0 && (
          <Box marginTop={titleRow === 0 ? 0 : 1}>
            <Text bold>Language servers</Text>
          </Box>
        )}
        {lsp.map((s, i) => row(s, mcp.length + i))}
      </ScrollView>
      {gone.length > 0 && (
        <Text color="gray" wrap="truncate-end">
          {/* One line: names are terminal-safe, the list cut at the edge. */}
          ○ removed from settings: {gone.map((s) => terminalSafe(displayName(s))).join(', ')}
        </Text>
      )}
      <Box marginTop={1} flexDirection="column" flexShrink={0}>
        <Text>
          {/* Idle is healthy (decision 196): counted with the connected ones, how many of them said. */}
          <Text color="green">
            {counts.connected} connected{counts.idle > 0 ? ` (${counts.idle} idle)` : ''}
          </Text>
          {' · '}
          <Text color={counts.needApproval > 0 ? 'yellow' : undefined}>{counts.needApproval} need approval</Text>
          {' · '}
          <Text color={counts.errors > 0 ? 'red' : undefined}>{plural(counts.errors, 'error')}</Text>
        </Text>
        {counts.firstError !== undefined && (
          <Text color="gray">view error logs with {detailCommand(counts.firstError)}</Text>
        )}
      </Box>
    </Box>
  );
}

/** Renders again once the clock reads `at` (a time in ms), so what depends on the clock changes when it is due. */
function useRenderAt(at: number | undefined): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (at === undefined) return;
    return wakeAt(at, () => setTick((n) => n + 1));
  }, [at]);
}

function ServerRow({ server: s, selected, nameWidth }: { server: ServerStatus; selected: boolean; nameWidth: number }) {
  const { icon, color } = stateIcon(s);
  const text = statusText(s);
  const withheld = withheldCount(s);
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
          {/* One line: a name's `\n` shown, so a name cannot fake a row (decision 164). */}
          {terminalSafe(displayName(s))}
        </Text>
      </Box>
      <Box width={11} flexShrink={0}>
        <Text color="gray">{s.scope}</Text>
      </Box>
      {listsTools(s) ? (
        // An idle server's tools are listed and callable (decision 196): its counts, then why it has no process.
        <Text wrap="truncate-end">
          {isLanguageServer(s) ? languageServerFacts(s) : listCounts(s)}
          {withheld !== undefined && <Text color="yellow"> · {withheld}</Text>}
          {s.state === 'idle' && <Text color="gray"> · {text?.split('\n')[0]}</Text>}
        </Text>
      ) : s.state === 'connecting' ? (
        <Text>
          <Spinner /> <Text color="yellow">connecting</Text>
        </Text>
      ) : (
        // The first line only, cut at the edge (one row per server, so the selection can be kept
        // in view): a stack or a stderr dump belongs to the detail view.
        <Text wrap="truncate-end">
          <Text color={s.state === 'error' ? 'red' : 'gray'}>{text?.split('\n')[0]}</Text>
          {isLanguageServer(s) && <Text color="gray"> · {languageServerFacts(s)}</Text>}
        </Text>
      )}
    </Box>
  );
}
