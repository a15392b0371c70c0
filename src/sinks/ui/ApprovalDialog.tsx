import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import type { McpLive } from '../../createMcpLive.js';
import type { PendingApproval } from '../../model/status.js';

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
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [failure, setFailure] = useState<{ name: string; message: string } | undefined>(undefined);
  const first = pending[0];

  const run = (what: string, name: string, action: () => Promise<unknown>) => {
    setBusy(what);
    setFailure(undefined);
    action().then(
      () => setBusy(undefined),
      (err: unknown) => {
        setBusy(undefined);
        setFailure({ name, message: err instanceof Error ? err.message : String(err) });
      },
    );
  };

  useInput(
    (input, key) => {
      if (!first || busy !== undefined) return;
      if (key.escape) onLater();
      else if (input === 'a') run(`approving ${first.name}…`, first.name, () => actions.approve(first.name, { persist: true }));
      else if (input === 's') {
        run(`approving ${first.name} for this session…`, first.name, () => actions.approve(first.name, { persist: false }));
      } else if (input === 'A') run('approving all pending servers…', first.name, () => actions.approveAllPending());
      else if (input === 'r') run(`rejecting ${first.name}…`, first.name, () => actions.reject(first.name));
    },
    { isActive: isActive && first !== undefined },
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
        {busy !== undefined ? (
          <Text color="yellow">{busy}</Text>
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
