import { Box, Text } from 'ink';
import { useState } from 'react';
import type { McpLive } from '../../createMcpLive.js';
import type { PendingApproval } from '../../model/status.js';
import { KEY_PRIORITY, useKeys, useSyncState } from './keys.js';
import { pendingSetKey } from './useApprovalPrompt.js';

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
 * Asks about the first server of the promptable set (SPEC §5): its name, scope, source file and
 * the command or URL it would start, with the four choices plus "later". The set it shows is
 * whatever arrived last, so a server decided elsewhere (another session, `mcp-live approvals`)
 * disappears without a key press. A failed decision is shown inline; keys are ignored while one
 * is being written.
 */
export function ApprovalDialog({ pending, actions, onLater, isActive = true }: ApprovalDialogProps) {
  // In refs too: "aa" in one chunk must not write two decisions.
  const [busy, setBusy, busyRef] = useSyncState<string | undefined>(undefined);
  // The set a decision was written for: until the pass that applies it changes the set, the
  // same question stays on screen, and must not be answered twice.
  const [decidedFor, setDecidedFor, decidedRef] = useSyncState<string | undefined>(undefined);
  const [failure, setFailure] = useState<{ name: string; message: string } | undefined>(undefined);
  const first = pending[0];
  const setKey = pendingSetKey(pending);
  const waiting = decidedFor === setKey;

  const run = (what: string, name: string, action: () => Promise<unknown>) => {
    const askedFor = setKey;
    setBusy(what);
    setFailure(undefined);
    action().then(
      () => {
        setBusy(undefined);
        setDecidedFor(askedFor);
      },
      (err: unknown) => {
        setBusy(undefined);
        setFailure({ name, message: err instanceof Error ? err.message : String(err) });
      },
    );
  };

  // Modal: while it shows, every key is the dialog's (Ctrl-C still quits, it asks first).
  useKeys(
    (input, key) => {
      if (!first || busyRef.current !== undefined) return true;
      if (key.escape) onLater();
      if (decidedRef.current === setKey) return true;
      const { name } = first;
      if (input === 'a') run(`approving ${name}…`, name, () => actions.approve(name, { persist: true }));
      else if (input === 's') run(`approving ${name} for this session…`, name, () => actions.approve(name, { persist: false }));
      else if (input === 'A') run('approving all pending servers…', name, () => actions.approveAllPending());
      else if (input === 'r') run(`rejecting ${name}…`, name, () => actions.reject(name));
      return true;
    },
    { priority: KEY_PRIORITY.dialog, isActive: isActive && first !== undefined },
  );

  if (!first) return null;
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(first.target);
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
      <Row label={isUrl ? 'url' : 'command'}>{first.target}</Row>
      <Text color="gray">It came with this workspace; approve only what you trust to run as you.</Text>
      <Box marginTop={1}>
        {busy !== undefined || waiting ? (
          <Text color="yellow">{busy ?? 'decided — waiting for the reconcile pass…'}</Text>
        ) : (
          <Text>
            <Key k="a" /> approve  <Key k="s" /> this session only  <Key k="A" /> approve all {pending.length} pending{'  '}
            <Key k="r" /> reject  <Key k="Esc" /> later
          </Text>
        )}
      </Box>
      {failure !== undefined && failure.name === first.name && <Text color="red">✖ {failure.message}</Text>}
    </Box>
  );
}

function Row({ label, children }: { label: string; children: string }) {
  return (
    <Box>
      <Box width={9} flexShrink={0}>
        <Text color="gray">{label}</Text>
      </Box>
      <Text>{children}</Text>
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
