import { Box, type Key as InkKey } from 'ink';
import { Text } from '../kit/Text.js';
import { useEffect, useState, type ReactNode } from 'react';
import type { McpLiveApprovals } from '../../../live/types.js';
import { lspName, serverKind } from '../../../model/serverKeys.js';
import type { ReviewLine } from '../../../model/admission/reviewEntry.js';
import type { PendingApproval } from '../../../model/report/status.js';
import { KEY_PRIORITY, useKeys, useSyncState } from '../kit/keys.js';
import { OptionList, optionKey, type Option } from '../kit/OptionList.js';
import { terminalSafe } from '../../../model/terminalText.js';
import { reviewLineRisk } from '../text/reviewLineRisk.js';
import { ScrollView } from '../kit/ScrollView.js';
import { plural } from '../../../model/report/messages.js';
import { SurfaceDiff } from '../text/SurfaceDiff.js';
import { EntryDiff } from '../text/EntryDiff.js';
import { pendingSetKey } from './useApprovalPrompt.js';

/** The decisions the dialog can take (a subset of {@link McpLiveApprovals}). */
export type ApprovalActions = Pick<McpLiveApprovals, 'approve' | 'approveAll' | 'reject'>;

export interface ApprovalDialogProps {
  /** The promptable set; the dialog asks about the first one. Renders nothing when empty. */
  pending: readonly PendingApproval[];
  actions: ApprovalActions;
  /** Esc: ask later. */
  onLater: () => void;
  isActive?: boolean;
}

type ReviewChoice = 'approve' | 'session' | 'all' | 'reject';
type ConfirmChoice = 'yes' | 'back';

/**
 * The choices for one pending server. A changed surface (decision 197) has no session-only
 * approval — approving it makes it the pin, kept in the pin file (decision 307) — and its reject lasts
 * this session only (the tools stay withheld, the next session asks again): the words say so.
 */
function reviewOptions(pending: number, surface: boolean): readonly Option<ReviewChoice>[] {
  if (surface) {
    return [
      { value: 'approve', label: 'Approve the new tools (remembered)', letter: 'a' },
      { value: 'all', label: `Approve all ${pending} pending…`, letter: 'A' },
      { value: 'reject', label: 'Reject for this session (they stay withheld)', letter: 'r' },
    ];
  }
  return [
    { value: 'approve', label: 'Approve (remembered)', letter: 'a' },
    { value: 'session', label: 'Approve for this session only', letter: 's' },
    { value: 'all', label: `Approve all ${pending} pending…`, letter: 'A' },
    { value: 'reject', label: 'Reject (remembered)', letter: 'r' },
  ];
}

function confirmOptions(pending: number): readonly Option<ConfirmChoice>[] {
  return [
    { value: 'yes', label: `Yes, approve ${pending === 1 ? 'it' : `all ${pending}`}`, letter: 'y' },
    { value: 'back', label: 'No, back to the review', letter: 'n' },
  ];
}

/**
 * Asks about the first server of the promptable set (docs/contract.md, "Approvals"; decision 54):
 * its name, scope, source file and every line of its entry that decides what runs or where data
 * goes (`review`), the risky ones highlighted, scrolled inside the dialog when the entry is longer
 * than the screen allows. A decision names the hash of the entry shown, so an entry edited after it
 * was drawn is refused by the library, not approved unseen. "Approve all" first lists every server
 * it would approve and approves exactly that list. The set shown is whatever arrived last, so a
 * server decided elsewhere (another session, `mcp-live approvals`) disappears without a key press.
 * A failed decision is shown inline; decision keys are ignored while one is being written.
 *
 * Keys (decision 73), as in Qwen Code's and Gemini CLI's confirmations: the options are a list, ↑/↓
 * (k/j) move the highlight, Enter chooses it (the first is "approve"), 1–4 choose directly, and
 * the letters a s A r keep working; Esc asks later. The arrows belong to the options, so the entry
 * scrolls with PgUp/PgDn and Home/End. The confirmation of "approve all" is a list of two (y / n,
 * Esc back), "yes" highlighted.
 *
 * A server whose tools changed since the user approved it (decision 197, `surface` set) is asked
 * about with the differences first — "The tools of “NAME” changed since you approved it", then
 * each change with its text before and now ({@link SurfaceDiff}) — and its entry below them. The
 * decision is the same `approve(name, {hash})`, with the hash that binds the entry and the new tools.
 *
 * An entry that waits again because it changed since the user approved it (decision 331,
 * `edited` set) says so in its title, and shows the fields that changed, before → now
 * ({@link EntryDiff}), above the whole entry as it is now — or, when the approved entry is not
 * known this session, that it changed and the earlier entry was not kept.
 */
export function ApprovalDialog({ pending, actions, onLater, isActive = true }: ApprovalDialogProps) {
  // In refs too: "aa" in one chunk must not write two decisions.
  const [busy, setBusy, busyRef] = useSyncState<string | undefined>(undefined);
  // The set a decision was written for: until the pass that applies it changes the set, the
  // same question stays on screen, and must not be answered twice.
  const [decidedFor, setDecidedFor, decidedRef] = useSyncState<string | undefined>(undefined);
  // The set "approve all" was asked for, while its confirmation shows.
  const [confirmingFor, setConfirmingFor, confirmingRef] = useSyncState<string | undefined>(undefined);
  // The highlighted option of the review, per entry: another server (or the same one edited)
  // starts at the top; the confirmation's, from its top each time it opens.
  const [highlight, setHighlight, highlightRef] = useSyncState<{ view: string; index: number }>({ view: '', index: 0 });
  const [confirmHighlight, setConfirmHighlight, confirmHighlightRef] = useSyncState(0);
  // `name` undefined: a failure of the whole set ("approve all").
  const [failure, setFailure] = useState<{ name?: string; message: string } | undefined>(undefined);
  const first = pending[0];
  const setKey = pendingSetKey(pending);
  const waiting = decidedFor === setKey;
  const confirming = confirmingFor !== undefined && first !== undefined;

  // A confirmation never outlives the set it listed: an emptied set closes it.
  useEffect(() => {
    if (pending.length === 0 && confirmingRef.current !== undefined) setConfirmingFor(undefined);
  });

  // The entry under review: another one (or this one edited) scrolls and highlights from the top.
  const review = first ? `review:${first.name}@${first.hash}` : '';
  const highlightOf = (v: string) => (highlightRef.current.view === v ? highlightRef.current.index : 0);

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

  const confirmKeys = (input: string, key: InkKey) => {
    const options = confirmOptions(pending.length);
    const picked = optionKey(input, key, options, confirmHighlightRef.current);
    const choice = key.escape ? 'back' : picked?.kind === 'choose' ? options[picked.index]?.value : undefined;
    if (picked?.kind === 'move') setConfirmHighlight(picked.index);
    else if (choice === 'back') setConfirmingFor(undefined);
    // Only a confirmation on screen can be confirmed: "Ay" in one chunk must not approve a list
    // that was never drawn (`confirming` is this render's, the ref already says "open").
    else if (choice === 'yes' && confirming && decidedRef.current !== setKey) {
      // Exactly the list on screen: a server that arrived after this render is not in it.
      const listed = pending.map(({ name, hash }) => ({ name, hash }));
      const close = () => setConfirmingFor(undefined);
      run(`approving ${plural(listed.length, 'server')}…`, undefined, () => actions.approveAll(listed), close);
    }
  };

  const reviewKeys = (input: string, key: InkKey, { name, hash, surface }: PendingApproval) => {
    const v = `review:${name}@${hash}`;
    const options = reviewOptions(pending.length, surface !== undefined);
    const picked = optionKey(input, key, options, highlightOf(v));
    if (key.escape) onLater();
    else if (picked === undefined) return;
    else if (picked.kind === 'move') setHighlight({ view: v, index: picked.index });
    else if (decidedRef.current === setKey) return;
    else {
      setHighlight({ view: v, index: picked.index });
      const choice = options[picked.index]?.value;
      if (choice === 'approve') run(`approving ${name}…`, name, () => actions.approve(name, { persist: true, hash }));
      else if (choice === 'session') run(`approving ${name} for this session…`, name, () => actions.approve(name, { persist: false, hash }));
      else if (choice === 'reject') run(`rejecting ${name}…`, name, () => actions.reject(name, { hash }));
      else if (choice === 'all') {
        setConfirmHighlight(0);
        setConfirmingFor(setKey);
      }
    }
  };

  // Modal: while it shows, every key is the dialog's (Ctrl-C still quits, it asks first); the
  // scrolled part takes its keys first.
  const active = isActive && first !== undefined;
  useKeys(
    (input, key) => {
      if (!first || busyRef.current !== undefined) return true;
      if (confirmingRef.current !== undefined) confirmKeys(input, key);
      else reviewKeys(input, key, first);
      return true;
    },
    { priority: KEY_PRIORITY.dialog, isActive: active },
  );

  if (!first) return null;
  const surface = first.surface;
  const options = reviewOptions(pending.length, surface !== undefined);
  // The "! " mark, the label and a space: 11 for an MCP entry's labels; a language server's run
  // longer (`workspaceFolder`).
  const labelWidth = 2 + Math.max(9, ...first.review.map((line) => line.label.length + 1), ...(first.edited?.changes ?? []).map((c) => c.label.length + 1));
  const status = busy ?? (waiting ? 'decided — waiting for the reconcile pass…' : undefined);
  const scrollKeys = { priority: KEY_PRIORITY.dialogScroll, isActive: active, lines: false };
  if (confirming) {
    return (
      <ConfirmAll
        pending={pending}
        changed={confirmingFor !== setKey}
        status={status}
        highlighted={confirmHighlight}
        scroll={
          <ScrollView keys={scrollKeys}>
            {pending.map((p) => (
              <ConfirmRow key={p.name} pending={p} />
            ))}
          </ScrollView>
        }
      />
    );
  }
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Box flexDirection="column" flexShrink={0}>
        <Text>
          <Text bold color="yellow">
            {first.surface !== undefined
              ? `The tools of “${terminalSafe(first.name)}” changed since you approved it. Approve the new ones?`
              : first.edited !== undefined
                ? `The entry of ${serverNoun(first.name)} “${terminalSafe(lspName(first.name))}” changed since you approved it. Approve it as it is now?`
                : `Approve ${serverNoun(first.name)} “${terminalSafe(lspName(first.name))}”?`}
          </Text>
          <Text color="gray">
            {'  '}(1 of {pending.length})
          </Text>
        </Text>
        <Row label="scope" width={labelWidth}>
          {first.scope}
        </Row>
        <Row label="source" width={labelWidth}>
          {terminalSafe(first.source)}
        </Row>
      </Box>
      <ScrollView keys={scrollKeys} resetKey={review}>
        {surface !== undefined && (
          // The differences first: they are what is asked about; the entry, approved before, below.
          <Box flexDirection="column">
            <Text bold>{`What changed (${plural(surface.length, 'change')}):`}</Text>
            <SurfaceDiff changes={surface} />
            <Text bold>Its entry:</Text>
          </Box>
        )}
        {surface === undefined && first.edited !== undefined && (
          // An edited entry (decision 331): the fields that changed first, then the whole entry as it is now.
          <Box flexDirection="column">
            {first.edited.changes === undefined ? (
              <Text color="gray">Changed since you approved it (the earlier entry was not kept, so what changed is not known).</Text>
            ) : (
              <>
                <Text bold>{`What changed (${plural(first.edited.changes.length, 'field')}), before → now:`}</Text>
                <EntryDiff changes={first.edited.changes} width={labelWidth} />
              </>
            )}
            <Text bold>Its entry now:</Text>
          </Box>
        )}
        {first.review.map((line, i) => (
          <ReviewRow key={i} line={line} width={labelWidth} />
        ))}
      </ScrollView>
      <Box flexDirection="column" flexShrink={0}>
        <Text color="gray">
          {surface === undefined
            ? 'It came with this workspace; approve only what you trust to run as you.'
            : 'Until you approve, the changed tools are withheld from the agent; the others keep working.'}
        </Text>
        <Box marginTop={1}>
          <OptionList options={options} highlighted={highlight.view === review ? highlight.index : 0} />
        </Box>
        <Footer status={status}>{`↑↓ select · Enter choose · 1–${options.length} or ${options.map((o) => o.letter).join(' ')} · Esc later`}</Footer>
        {failure !== undefined && (failure.name === undefined || failure.name === first.name) && (
          <Text color="red">✖ {failure.message}</Text>
        )}
      </Box>
    </Box>
  );
}

/** "Approve all": every server it would approve, with its one-line target, before anything is written. */
function ConfirmAll({
  pending,
  changed,
  status,
  highlighted,
  scroll,
}: {
  pending: readonly PendingApproval[];
  changed: boolean;
  status: string | undefined;
  highlighted: number;
  scroll: ReactNode;
}) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Box flexShrink={0}>
        <Text bold color="yellow">
          Approve all {plural(pending.length, `pending ${commonNoun(pending)}`)}?
        </Text>
      </Box>
      {scroll}
      <Box flexDirection="column" flexShrink={0}>
        {changed && <Text color="yellow">The pending set changed while this was open — check the list again.</Text>}
        <Text color="gray">Each runs as you; Esc goes back to review them one by one.</Text>
        <Box marginTop={1}>
          <OptionList options={confirmOptions(pending.length)} highlighted={highlighted} />
        </Box>
        <Footer status={status}>↑↓ select · Enter choose · y/n · Esc back</Footer>
      </Box>
    </Box>
  );
}

function ConfirmRow({ pending: p }: { pending: PendingApproval }) {
  return (
    <Box flexDirection="column">
      <Text wrap="wrap">
        <Text bold>{terminalSafe(lspName(p.name))}</Text>
        <Text color="gray">
          {'  '}
          {serverKind(p.name) === 'lsp' ? 'language server · ' : ''}
          {p.scope} · {terminalSafe(p.source)}
          {p.surface !== undefined ? ` · tools changed (${plural(p.surface.length, 'change')})` : ''}
        </Text>
      </Text>
      <Box paddingLeft={2}>
        <Text wrap="wrap">{terminalSafe(p.target)}</Text>
      </Box>
    </Box>
  );
}

/** What a pending entry is, by the kind of its key: a language server is keyed `lsp:NAME` (decision 145). */
function serverNoun(key: string): string {
  return serverKind(key) === 'lsp' ? 'language server' : 'MCP server';
}

/** The noun for a whole pending set: its one kind's, or plain "server" when it mixes both. */
function commonNoun(pending: readonly PendingApproval[]): string {
  const nouns = new Set(pending.map((p) => serverNoun(p.name)));
  return nouns.size === 1 ? [...nouns][0]! : 'server';
}

/** The keys, or what is being done instead (a decision being written, or waiting for its pass). */
function Footer({ status, children }: { status: string | undefined; children: ReactNode }) {
  return status !== undefined ? <Text color="yellow">{status}</Text> : <Text color="gray">{children}</Text>;
}

function ReviewRow({ line, width }: { line: ReviewLine; width: number }) {
  const risk = reviewLineRisk(line);
  return (
    <Row label={line.label} risky={risk !== undefined} width={width}>
      {/* One line: a `\n` in a value shows as `\n`, so it cannot fake a review line (decision 164). */}
      {terminalSafe(line.value)}
      {risk?.note !== undefined && <Text color="yellow">{`  (${risk.note})`}</Text>}
    </Row>
  );
}

/** A label and its value, wrapped; a risky one marked with "!" too, so it stands out without colour. */
function Row({ label, risky = false, width, children }: { label: string; risky?: boolean; width: number; children: ReactNode }) {
  return (
    <Box>
      <Box width={width} flexShrink={0}>
        <Text color={risky ? 'yellow' : 'gray'} bold={risky}>
          {risky ? '! ' : '  '}
          {label}
        </Text>
      </Box>
      <Text wrap="wrap">{children}</Text>
    </Box>
  );
}
