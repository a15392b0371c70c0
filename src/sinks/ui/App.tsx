import { Box, Text } from 'ink';
import { useEffect, useMemo, useState } from 'react';
import { filter, map, take } from 'rxjs';
import type { McpLive } from '../../createMcpLive.js';
import type { QualifiedTool, ServerStatus } from '../../model/status.js';
import { ApprovalDialog } from './ApprovalDialog.js';
import { CommandLine } from './CommandLine.js';
import { runCommandLine, type Output, type View } from './commands.js';
import { completeCommandLine } from './completeCommandLine.js';
import { KEY_PRIORITY, KeyRouter, useKeys } from './keys.js';
import { ReconcileLog } from './ReconcileLog.js';
import { ServerDetail } from './ServerDetail.js';
import { ServerList } from './ServerList.js';
import { useApprovalPrompt } from './useApprovalPrompt.js';
import { useObservable, useThrottledObservable } from './useObservable.js';

export interface AppProps {
  live: McpLive;
  /** Ctrl-C or `/quit`: the caller unmounts and disposes. */
  onExit: () => void;
  /** Lines of command output shown before "… N more lines" (default 30). */
  maxOutputLines?: number;
}

/**
 * The interactive session (SPEC §9): server list or one server's detail, the approval dialog
 * whenever the promptable set is not empty, the output of the last command, the live log of
 * passes, and the command line.
 *
 * Keys, first come first served (see {@link KeyRouter}): Ctrl-C quits from anywhere; the
 * approval dialog, while it shows, takes every other key; a typed command line takes the rest;
 * with an empty line, ↑ ↓ Enter go to the list and Esc goes back from the detail view.
 */
export function App(props: AppProps) {
  return (
    <KeyRouter>
      <Session {...props} />
    </KeyRouter>
  );
}

/** How often an open detail view reads the server's stderr tail again. */
const STDERR_REFRESH_MS = 1000;

const NO_SERVERS: readonly ServerStatus[] = [];
const NO_TOOLS: readonly QualifiedTool[] = [];

function Session({ live, onExit, maxOutputLines = 30 }: AppProps) {
  const servers = useThrottledObservable(live.servers$, NO_SERVERS);
  const tools = useThrottledObservable(live.tools$, NO_TOOLS);
  const approval = useApprovalPrompt(live.pendingApprovals$);
  const ready$ = useMemo(
    () => live.events$.pipe(filter((e) => e.type === 'ready'), take(1), map(() => true)),
    [live.events$],
  );
  const ready = useObservable(ready$, false);
  const [view, setView] = useState<View>({ kind: 'list' });
  const [output, setOutput] = useState<Output | undefined>(undefined);
  const [running, setRunning] = useState<string | undefined>(undefined);

  const detail = view.kind === 'detail' ? servers.find((s) => s.name === view.server) : undefined;
  // stderr is read, not pushed: while a detail is open, read it again every second.
  useTicker(STDERR_REFRESH_MS, view.kind === 'detail');

  useKeys(
    (input, key) => {
      if (!(key.ctrl && input === 'c')) return false;
      onExit();
      return true;
    },
    { priority: KEY_PRIORITY.quit },
  );
  useKeys(
    (_input, key) => {
      if (!key.escape) return false;
      setView({ kind: 'list' });
      return true;
    },
    { priority: KEY_PRIORITY.back, isActive: view.kind !== 'list' },
  );

  const submit = (line: string) => {
    setRunning(line.split(' ')[0]);
    setOutput(undefined);
    void runCommandLine(line, { live, servers, tools }).then((outcome) => {
      setRunning(undefined);
      setOutput(outcome.output);
      if (outcome.view) setView(outcome.view);
      if (outcome.quit) onExit();
    });
  };

  return (
    <Box flexDirection="column">
      <Text>
        <Text bold color="cyan">
          mcp-live
        </Text>
        <Text color="gray">
          {'  '}
          {live.cwd} · profile {live.profile}
        </Text>
      </Text>
      <Box marginY={1} flexDirection="column">
        {view.kind === 'list' ? (
          <ServerList servers={servers} starting={!ready} onOpen={(server) => setView({ kind: 'detail', server })} />
        ) : detail ? (
          <ServerDetail server={detail} stderr={live.stderrTail(detail.name)} config={live.serverConfig(detail.name)} />
        ) : (
          <Text color="yellow">MCP server “{view.server}” is not configured any more. Esc back to the list.</Text>
        )}
      </Box>
      {approval.visible && <ApprovalDialog pending={approval.pending} actions={live} onLater={approval.later} />}
      {!approval.visible && approval.pending.length > 0 && (
        <Text color="yellow">
          {approval.pending.map((p) => p.name).join(', ')} {approval.pending.length === 1 ? 'waits' : 'wait'} for
          approval: /approve NAME or /reject NAME
        </Text>
      )}
      {output !== undefined && <OutputPanel output={output} max={maxOutputLines} />}
      <ReconcileLog events$={live.events$} />
      <CommandLine
        onSubmit={submit}
        complete={(value) =>
          completeCommandLine(value, { servers: servers.map((s) => s.name), tools: tools.map((t) => t.name) })
        }
        isActive={!approval.visible}
        status={running === undefined ? undefined : `running ${running}…`}
      />
      <Text color="gray">
        {approval.visible
          ? 'the approval dialog has the keys · Esc later · Ctrl-C quit'
          : `${view.kind === 'list' ? '↑↓ select · Enter details · ' : 'Esc back · '}/help commands · Tab completes · Ctrl-C quit`}
      </Text>
    </Box>
  );
}

function OutputPanel({ output, max }: { output: Output; max: number }) {
  const color = output.tone === 'error' ? 'red' : output.tone === 'success' ? 'green' : undefined;
  const shown = output.lines.slice(0, max);
  const more = output.lines.length - shown.length;
  return (
    <Box flexDirection="column" marginBottom={1}>
      {shown.map((line, i) => (
        <Text key={i} color={color}>
          {line}
        </Text>
      ))}
      {more > 0 && <Text color="gray">… {more} more lines</Text>}
    </Box>
  );
}

/** Re-renders every `ms` while `active`; the timer stops with it. */
function useTicker(ms: number, active: boolean): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((t) => t + 1), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}
