import { Box, Text, type Key as InkKey } from 'ink';
import { useEffect, useState, type ReactNode } from 'react';
import type { McpLive } from '../../createMcpLive.js';
import type { ReviewLine } from '../../model/reviewEntry.js';
import type { PendingApproval } from '../../model/status.js';
import { KEY_PRIORITY, useKeys, useSyncState } from './keys.js';
import { reviewLineRisk } from './reviewLineRisk.js';
import { scrollStep, scrollWindow, type ScrollWindow } from './scrollWindow.js';
import { plural } from './serverSummary.js';
import { pendingSetKey } from './useApprovalPrompt.js';
import { useTerminalRows } from './useTerminalRows.js';

/** The decisions the dialog can take (a subset of {@link McpLive}). */
export type ApprovalActions = Pick<McpLive, 'approve' | 'approveAllPending' | 'reject'>;

export interface ApprovalDialogProps {
  /** The promptable set; the dialog asks about the first one. Renders nothing when empty. */
  pending: readonly PendingApproval[];
  actions: ApprovalActions;
  /** Esc: ask later. */
  onLater: () => void;
  isActive?: boolean;
}

/**
 * Rows the session keeps around the scrolled part of the dialog: its border, title, scope,
 * source, warning, key line, failure and scroll hint (10), and the session's header, command line
 * and key hint with their margins (6).
 */
const CHROME_ROWS = 16;
/** What a terminal that does not say its height (a pipe, a test) is taken to have. */
const DEFAULT_ROWS = 24;
const MIN_VISIBLE_LINES = 5;

/**
 * Asks about the first server of the promptable set (SPEC §5, issue 11): its name, scope, source
 * file and every line of its entry that decides what runs or where data goes (`review`), the risky
 * ones highlighted, scrolled inside the dialog when the entry is longer than the terminal allows.
 * A decision names the hash of the entry shown, so an entry edited after it was drawn is refused
 * by the library, not approved unseen. "Approve all" first lists every server it would approve and
 * approves exactly that list. The set shown is whatever arrived last, so a server decided elsewhere
 * (another session, `mcp-live approvals`) disappears without a key press. A failed decision is
 * shown inline; decision keys are ignored while one is being written.
 */
export function ApprovalDialog({ pending, actions, onLater, isActive = true }: ApprovalDialogProps) {
  // In refs too: "aa" in one chunk must not write two decisions.
  const [busy, setBusy, busyRef] = useSyncState<string | undefined>(undefined);
  // The set a decision was written for: until the pass that applies it changes the set, the
  // same question stays on screen, and must not be answered twice.
  const [decidedFor, setDecidedFor, decidedRef] = useSyncState<string | undefined>(undefined);
  // The set "approve all" was asked for, while its confirmation shows.
  const [confirmingFor, setConfirmingFor, confirmingRef] = useSyncState<string | undefined>(undefined);
  const [scroll, setScroll, scrollRef] = useSyncState<{ view: string; offset: number }>({ view: '', offset: 0 });
  // `name` undefined: a failure of the whole set ("approve all").
  const [failure, setFailure] = useState<{ name?: string; message: string } | undefined>(undefined);
  const visibleLines = Math.max(MIN_VISIBLE_LINES, (useTerminalRows() ?? DEFAULT_ROWS) - CHROME_ROWS);
  const first = pending[0];
  const setKey = pendingSetKey(pending);
  const waiting = decidedFor === setKey;
  const confirming = confirmingFor !== undefined && first !== undefined;

  // A confirmation never outlives the set it listed: an emptied set closes it.
  useEffect(() => {
    if (pending.length === 0 && confirmingRef.current !== undefined) setConfirmingFor(undefined);
  });

  // What scrolls: the review lines of the first server, or (confirming) the servers, two rows each.
  const view = confirming ? 'confirm' : first ? `review:${first.name}@${first.hash}` : '';
  const total = confirming ? pending.length : (first?.review.length ?? 0);
  const height = confirming ? Math.max(2, Math.floor(visibleLines / 2)) : visibleLines;
  // A new view (another server, the entry edited, confirmation opened) starts at its top.
  const offsetOf = (s: { view: string; offset: number }) => (s.view === view ? s.offset : 0);
  const shown = scrollWindow(offsetOf(scroll), total, height);

  const run = (what: string, name: string | undefined, action: () => Promise<unknown>, after?: () => void) => {
    const askedFor = setKey;
    setBusy(what);
    setFailure(undefined);
    action().then(
      () => {
        setBusy(undefined);
        setDecidedFor(askedFor);
        after?.();
      },
      (err: unknown) => {
        setBusy(undefined);
        after?.();
        setFailure({ name, message: err instanceof Error ? err.message : String(err) });
      },
    );
  };

  const scrolled = (key: InkKey): boolean => {
    const step = scrollStep(key, height);
    if (step === undefined) return false;
    setScroll({ view, offset: scrollWindow(offsetOf(scrollRef.current) + step, total, height).start });
    return true;
  };

  const confirmKeys = (input: string, key: InkKey) => {
    if (key.escape || input === 'n') setConfirmingFor(undefined);
    // Only a confirmation on screen can be confirmed: "Ay" in one chunk must not approve a list
    // that was never drawn (`confirming` is this render's, the ref already says "open").
    else if (input === 'y' && confirming && decidedRef.current !== setKey) {
      // Exactly the list on screen: a server that arrived after this render is not in it.
      const listed = pending.map(({ name, hash }) => ({ name, hash }));
      const close = () => setConfirmingFor(undefined);
      run(`approving ${plural(listed.length, 'server')}…`, undefined, () => actions.approveAllPending(listed), close);
    }
  };

  const reviewKeys = (input: string, key: InkKey, { name, hash }: PendingApproval) => {
    if (key.escape) onLater();
    else if (decidedRef.current === setKey) return;
    else if (input === 'a') run(`approving ${name}…`, name, () => actions.approve(name, { persist: true, hash }));
    else if (input === 's') run(`approving ${name} for this session…`, name, () => actions.approve(name, { persist: false, hash }));
    else if (input === 'r') run(`rejecting ${name}…`, name, () => actions.reject(name, { hash }));
    else if (input === 'A') setConfirmingFor(setKey);
  };

  // Modal: while it shows, every key is the dialog's (Ctrl-C still quits, it asks first).
  useKeys(
    (input, key) => {
      if (!first || scrolled(key) || busyRef.current !== undefined) return true;
      if (confirmingRef.current !== undefined) confirmKeys(input, key);
      else reviewKeys(input, key, first);
      return true;
    },
    { priority: KEY_PRIORITY.dialog, isActive: isActive && first !== undefined },
  );

  if (!first) return null;
  const status = busy ?? (waiting ? 'decided — waiting for the reconcile pass…' : undefined);
  if (confirming) {
    return <ConfirmAll pending={pending} window={shown} changed={confirmingFor !== setKey} status={status} />;
  }
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          Approve MCP server “{first.name}”?
        </Text>
        <Text color="gray">
          {'  '}(1 of {pending.length})
        </Text>
      </Text>
      <Row label="scope">{first.scope}</Row>
      <Row label="source">{first.source}</Row>
      {first.review.slice(shown.start, shown.end).map((line, i) => (
        <ReviewRow key={shown.start + i} line={line} />
      ))}
      <ScrollHint window={shown} unit="line" />
      <Text color="gray">It came with this workspace; approve only what you trust to run as you.</Text>
      <Box marginTop={1}>
        {status !== undefined ? (
          <Text color="yellow">{status}</Text>
        ) : (
          <Text>
            <Key k="a" /> approve  <Key k="s" /> this session only  <Key k="A" /> approve all {pending.length} pending…{'  '}
            <Key k="r" /> reject  <Key k="Esc" /> later
          </Text>
        )}
      </Box>
      {failure !== undefined && (failure.name === undefined || failure.name === first.name) && (
        <Text color="red">✖ {failure.message}</Text>
      )}
    </Box>
  );
}

/** "Approve all": every server it would approve, with its one-line target, before anything is written. */
function ConfirmAll({
  pending,
  window,
  changed,
  status,
}: {
  pending: readonly PendingApproval[];
  window: ScrollWindow;
  changed: boolean;
  status: string | undefined;
}) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold color="yellow">
        Approve all {plural(pending.length, 'pending MCP server')}?
      </Text>
      {pending.slice(window.start, window.end).map((p) => (
        <Box key={p.name} flexDirection="column">
          <Text wrap="wrap">
            <Text bold>{p.name}</Text>
            <Text color="gray">
              {'  '}
              {p.scope} · {p.source}
            </Text>
          </Text>
          <Box paddingLeft={2}>
            <Text wrap="wrap">{p.target}</Text>
          </Box>
        </Box>
      ))}
      <ScrollHint window={window} unit="server" />
      {changed && <Text color="yellow">The pending set changed while this was open — check the list again.</Text>}
      <Text color="gray">Each runs as you; Esc goes back to review them one by one.</Text>
      <Box marginTop={1}>
        {status !== undefined ? (
          <Text color="yellow">{status}</Text>
        ) : (
          <Text>
            <Key k="y" /> approve all {pending.length}
            {'  ·  '}
            <Key k="Esc" />/<Key k="n" /> back
          </Text>
        )}
      </Box>
    </Box>
  );
}

/** What a scrolled view hides, above and below; nothing when everything shows. */
function ScrollHint({ window: { above, below }, unit }: { window: ScrollWindow; unit: string }) {
  if (above === 0 && below === 0) return null;
  const parts = [above > 0 ? `↑ ${plural(above, unit)} above` : '', below > 0 ? `↓ ${plural(below, `more ${unit}`)}` : ''];
  return (
    <Text color="gray">
      {parts.filter((p) => p !== '').join(' · ')} (↑/↓ to scroll)
    </Text>
  );
}

function ReviewRow({ line }: { line: ReviewLine }) {
  const risk = reviewLineRisk(line);
  return (
    <Row label={line.label} risky={risk !== undefined}>
      {line.value}
      {risk?.note !== undefined && <Text color="yellow">{`  (${risk.note})`}</Text>}
    </Row>
  );
}

/** A label and its value, wrapped; a risky one marked with "!" too, so it stands out without colour. */
function Row({ label, risky = false, children }: { label: string; risky?: boolean; children: ReactNode }) {
  return (
    <Box>
      <Box width={11} flexShrink={0}>
        <Text color={risky ? 'yellow' : 'gray'} bold={risky}>
          {risky ? '! ' : '  '}
          {label}
        </Text>
      </Box>
      <Text wrap="wrap">{children}</Text>
    </Box>
  );
}

function Key({ k }: { k: string }) {
  return (
    <Text bold color="cyan">
      {k}
    </Text>
  );
}
