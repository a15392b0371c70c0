import { Box, type DOMElement } from 'ink';
import { Text } from './kit/Text.js';
import { useEffect, useMemo, useRef, useState } from 'react';
import { filter, map, take } from 'rxjs';
import type { McpLive, PendingElicitation } from '../../live/types.js';
import { lspName, serverKind } from '../../model/serverKeys.js';
import { terminalSafe } from '../../model/terminalText.js';
import type { QualifiedTool, ServerStatus } from '../../model/report/status.js';
import { ApprovalDialog } from './dialogs/ApprovalDialog.js';
import { CommandLine } from './commands/CommandLine.js';
import { ElicitationDialog } from './dialogs/ElicitationDialog.js';
import { TrustQuestion } from './dialogs/TrustQuestion.js';
import { launchHeldWhy } from '../../model/launch/launchHold.js';
import { runCommandLine, type Output, type View } from './commands/commands.js';
import { completeCommandLine } from './commands/completeCommandLine.js';
import { KEY_PRIORITY, KeyRouter, useKeys } from './kit/keys.js';
import { LanguageServerDetail } from './lists/LanguageServerDetail.js';
import { LayoutSync } from './kit/layoutSync.js';
import { ReconcileLog } from './lists/ReconcileLog.js';
import { Region, useRowBudget, type Claim } from './kit/rowBudget.js';
import { ScrollView } from './kit/ScrollView.js';
import { WindowedRows } from './kit/WindowedRows.js';
import { ServerDetail, type ServerDetailProps } from './lists/ServerDetail.js';
import { ServerList } from './lists/ServerList.js';
import { isLanguageServer } from './text/serverSummary.js';
import { useApprovalPrompt } from './dialogs/useApprovalPrompt.js';
import { useFrameCap } from './kit/useFrameCap.js';
import { useObservable, useThrottledObservable } from './kit/useObservable.js';

export interface AppProps {
  live: McpLive;
  /** Ctrl-C or `/quit`: the caller unmounts and disposes. */
  onExit: () => void;
  /** `/trust`: trusts the session's folder (decision 304); absent, the command says to run `mcp-live trust`. */
  trustFolder?: () => Promise<string>;
}

/**
 * The interactive session (docs/contract.md, "Interactive session"): server list or one server's
 * detail, a server's form (elicitation) while one waits, else the approval dialog whenever the
 * promptable set is not empty, the output of the last command, the live log of passes, and the
 * command line.
 *
 * Keys, first come first served (see {@link KeyRouter}): Ctrl-C quits from anywhere; the
 * approval dialog, while it shows, takes every other key (Esc puts it off, Ctrl-O brings it back,
 * `a` in a pending server's detail view opens it on that server: decision 330); a typed command line takes the rest;
 * with an empty line, PgUp/PgDn/Home/End scroll the command's output while it overflows, ↑ ↓
 * PgUp/PgDn Home/End Enter go to the list (or scroll the detail view), and Esc closes the output,
 * then goes back from the detail view.
 *
 * Layout (decisions 74 and 75): the frame stays shorter than the terminal (see {@link useFrameCap}); when
 * everything does not fit, its parts share the rows in the order of {@link claims} and scroll
 * inside what they got.
 */
export function App(props: AppProps) {
  return (
    <KeyRouter>
      <LayoutSync>
        <Session {...props} />
      </LayoutSync>
    </KeyRouter>
  );
}

/** How often an open detail view reads the server's stderr tail again. */
const STDERR_REFRESH_MS = 1000;

const NO_SERVERS: readonly ServerStatus[] = [];
const NO_TOOLS: readonly QualifiedTool[] = [];
const NO_FORMS: readonly PendingElicitation[] = [];

/**
 * Who gets the rows of a full screen first (see {@link useRowBudget}): the approval dialog, while
 * it shows, then the last command's output, the list or detail view, and the event log (a few
 * lines on a small screen, up to 8); without the dialog, two lines of the log come first.
 */
function claims(dialog: boolean, rows: number): readonly Claim[] {
  const log: Claim = { id: 'log', upTo: Math.max(2, Math.min(8, Math.floor(rows / 6))) };
  const views: readonly Claim[] = [{ id: 'output' }, { id: 'body' }, log];
  return dialog ? [{ id: 'dialog' }, ...views] : [{ id: 'log', upTo: 2 }, ...views];
}

function Session({ live, onExit, trustFolder }: AppProps) {
  const servers = useThrottledObservable(live.servers.list$, NO_SERVERS);
  const tools = useThrottledObservable(live.tools.list$, NO_TOOLS);
  const approval = useApprovalPrompt(live.approvals.pending$);
  // A server's form comes before an approval: a call waits for it, and its timeout runs.
  const forms = useThrottledObservable(live.elicitation.pending$, NO_FORMS);
  const asking = forms.length > 0;
  // The user's own servers held in this folder (decision 304): one question, once a session.
  const [trustAnswered, setTrustAnswered] = useState(false);
  const held = servers.filter((s) => s.reason === 'untrusted_launch');
  const trustQuestion = trustFolder !== undefined && !trustAnswered && held.length > 0 && !asking && !approval.visible;
  const dialog = asking || approval.visible || trustQuestion;
  const ready$ = useMemo(
    () => live.events$.pipe(filter((e) => e.type === 'ready'), take(1), map(() => true)),
    [live.events$],
  );
  const ready = useObservable(ready$, false);
  const [view, setView] = useState<View>({ kind: 'list' });
  // Numbered, so each command's output starts at its top.
  const [output, setOutput] = useState<{ id: number; output: Output } | undefined>(undefined);
  const outputs = useRef(0);
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
      setOutput(undefined);
      return true;
    },
    { priority: KEY_PRIORITY.dismiss, isActive: output !== undefined },
  );
  // A dialog put off with Esc comes back with Ctrl-O (decision 330): the command line leaves Ctrl keys alone.
  const recallable = !dialog && approval.pending.length > 0;
  useKeys(
    (input, key) => {
      if (!(key.ctrl && input === 'o')) return false;
      approval.recall();
      return true;
    },
    { priority: KEY_PRIORITY.dismiss, isActive: recallable },
  );
  // `a` in a pending server's detail: the same dialog, asking about that server (its entry, its hash).
  const detailPending = view.kind === 'detail' && !dialog && approval.pending.some((p) => p.name === view.server);
  useKeys(
    (input) => {
      if (input !== 'a' || view.kind !== 'detail') return false;
      approval.recall(view.server);
      return true;
    },
    { priority: KEY_PRIORITY.view, isActive: detailPending },
  );
  useKeys(
    (_input, key) => {
      if (!key.escape) return false;
      setView({ kind: 'list' });
      return true;
    },
    // From a detail, or from one kind's list (`/mcp`, `/lsp`), back to every server.
    { priority: KEY_PRIORITY.back, isActive: view.kind !== 'list' || view.show !== undefined },
  );
  const rootRef = useRef<DOMElement>(null);
  const rows = useFrameCap(rootRef);
  const budget = useRowBudget(rootRef, rows - 1, claims(dialog, rows));

  const answerTrust = (yes: boolean) => {
    setTrustAnswered(true);
    if (!yes || trustFolder === undefined) {
      setOutput({ id: ++outputs.current, output: { tone: 'info', lines: ['Not trusted: your servers here stay held. /trust trusts this folder later.'] } });
      return;
    }
    trustFolder().then(
      (words) => setOutput({ id: ++outputs.current, output: { tone: 'success', lines: [words] } }),
      (error: unknown) => setOutput({ id: ++outputs.current, output: { tone: 'error', lines: [error instanceof Error ? error.message : String(error)] } }),
    );
  };

  const submit = (line: string) => {
    setRunning(line.split(' ')[0]);
    setOutput(undefined);
    void runCommandLine(line, { live, servers, tools, ...(trustFolder ? { trustFolder } : {}) }).then((outcome) => {
      setRunning(undefined);
      setOutput(outcome.output && { id: ++outputs.current, output: outcome.output });
      if (outcome.view) setView(outcome.view);
      if (outcome.quit) onExit();
    });
  };

  return (
    <Box ref={rootRef} flexDirection="column">
      <Box flexShrink={0}>
        <Text>
          <Text bold color="cyan">
            mcp-live
          </Text>
          <Text color="gray">
            {'  '}
            {live.cwd} · profile {live.profile}
          </Text>
        </Text>
      </Box>
      <Region budget={budget} id="body" marginTop={1} marginBottom={dialog ? 0 : 1}>
        {view.kind === 'list' ? (
          <ServerList
            servers={servers}
            show={view.show ?? 'all'}
            starting={!ready}
            onOpen={(server) => setView({ kind: 'detail', server })}
          />
        ) : detail ? (
          <Detail
            server={detail}
            stderr={live.servers.stderrTail(detail.name)}
            config={live.servers.config(detail.name)}
            // A changed surface put off with Esc is reviewed here, beside the tools it withholds.
            surface={approval.pending.find((p) => p.name === detail.name)?.surface}
          />
        ) : (
          <Text color="yellow">{`${serverKind(view.server) === 'lsp' ? 'Language' : 'MCP'} server “${terminalSafe(lspName(view.server))}” is not configured any more. Esc back to the list.`}</Text>
        )}
      </Region>
      {dialog && (
        <Region budget={budget} id="dialog">
          {asking ? (
            <ElicitationDialog forms={forms} actions={live.elicitation} />
          ) : trustQuestion ? (
            <TrustQuestion folder={live.cwd} why={heldWhy(held)} servers={held.map((s) => s.name)} onAnswer={answerTrust} />
          ) : (
            <ApprovalDialog pending={approval.pending} actions={live.approvals} onLater={approval.later} />
          )}
        </Region>
      )}
      {!approval.visible && approval.pending.length > 0 && (
        <Box flexShrink={0}>
          <Text color="yellow">
            {approval.pending.map((p) => terminalSafe(p.name)).join(', ')} {approval.pending.length === 1 ? 'waits' : 'wait'} for
            approval: Ctrl-O to review, or /approve NAME, /reject NAME
          </Text>
        </Box>
      )}
      {output !== undefined && (
        <Region budget={budget} id="output" marginBottom={1}>
          <OutputPanel output={output.output} resetKey={String(output.id)} isActive={!dialog} />
        </Region>
      )}
      <Region budget={budget} id="log">
        <ReconcileLog events$={live.events$} />
      </Region>
      <Box flexDirection="column" flexShrink={0}>
        <CommandLine
          onSubmit={submit}
          complete={(value) =>
            completeCommandLine(value, { servers: servers.map((s) => s.name), tools: tools.map((t) => t.name) })
          }
          isActive={!dialog}
          status={running === undefined ? undefined : `running ${running}…`}
          shortcuts={detailPending ? DETAIL_PENDING_KEYS : undefined}
        />
        <Text color="gray">
          {asking
            ? 'the form has the keys · Esc cancels it · Ctrl-C quit'
            : approval.visible
              ? 'the approval dialog has the keys · Esc later, Ctrl-O back · Ctrl-C quit'
              : keyHint(view, output !== undefined, detailPending)}
        </Text>
      </Box>
    </Box>
  );
}

/** The keys of a pending server's detail view that an empty command line leaves to it. */
const DETAIL_PENDING_KEYS: readonly string[] = ['a'];

/** The keys that do something now, in one line of at most 80 columns. */
function keyHint(view: View, output: boolean, pendingDetail: boolean): string {
  if (pendingDetail && !output) return 'a approve… · Esc back · /help commands · Tab completes · Ctrl-C quit';
  const list = view.kind === 'list' ? '↑↓ select · Enter details · ' : '';
  if (output) return `${list}Esc closes output · /help commands · Ctrl-C quit`;
  if (view.kind === 'list' && view.show !== undefined) return `${list}Esc all servers · /help commands · Ctrl-C quit`;
  return `${list || 'Esc back · '}/help commands · Tab completes · Ctrl-C quit`;
}

/** A server's detail view by its kind: a language server's shows what a language server has. */
function Detail(props: ServerDetailProps) {
  return isLanguageServer(props.server) ? <LanguageServerDetail {...props} /> : <ServerDetail {...props} />;
}

/** The last command's output, scrolled with PgUp/PgDn/Home/End while it is taller than its share of the screen. */
function OutputPanel({ output, resetKey, isActive }: { output: Output; resetKey: string; isActive: boolean }) {
  const color = output.tone === 'error' ? 'red' : output.tone === 'success' ? 'green' : undefined;
  return (
    <ScrollView keys={{ priority: KEY_PRIORITY.output, isActive, lines: false }} resetKey={resetKey} hint="PgUp/PgDn scroll · Esc close">
      {/* `/tools` of 100,000 tools: a window of the lines (decision 192). */}
      <WindowedRows
        items={output.lines}
        row={(line, i) => (
          <Text key={i} color={color}>
            {line}
          </Text>
        )}
      />
    </ScrollView>
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

/** What the held servers' reasons name, distinct (`node_modules, .npmrc`). */
function heldWhy(held: readonly ServerStatus[]): string {
  const whys = held.map((s) => (s.detail === undefined ? undefined : launchHeldWhy(s.detail))).filter((why): why is string => why !== undefined);
  return [...new Set(whys)].join('; ') || 'its own files';
}
