import { assemble } from '../model/settings/assemble.js';
import { approvalHash, approvalState } from '../model/settings/approvalHash.js';
import { GATED_SCOPES } from '../model/types.js';
import type { McpLiveOptions } from '../live/types.js';
import { readInputsOnce } from '../live/planReport.js';
import { createApprovalsStore } from '../sinks/stores/approvalsStore.js';
import { UsageError, type CliCommand } from './args.js';
import { reviewEntry, type ReviewLine } from '../model/admission/reviewEntry.js';
import { serverKind } from '../model/serverKeys.js';
import { formatTable } from './statusCommand.js';
import { hasUnsafeCharacters, terminalSafe, UNSAFE_TEXT_NOTE } from '../model/terminalText.js';
import { createOutputMasks, maskingReplacer } from '../model/settings/secrets.js';
import { terminalWriter, writeJson } from './terminalWriter.js';

/**
 * `mcp-live approvals list | approve NAME | reject NAME | forget NAME`. A decision is bound to
 * the server's config (its approval hash): the entry and hash decided are printed, and with
 * `--hash H` the decision is refused unless the entry is still the one whose hash is H (what the
 * user reviewed). A running session sees it through its watcher on the approvals file.
 */
export async function runApprovals(
  options: McpLiveOptions,
  command: Extract<CliCommand, { kind: 'approvals' }>,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { action, json } = command;
  const { input, projectRoot, approvalsFile } = await readInputsOnce(options);
  // The secret net over what is printed, a gated entry's own text masked by value only
  // (decision 167); every human-readable line terminal-safe (decision 164), JSON too (168).
  const { mask, written, replacer } = createOutputMasks(options.env ?? process.env);
  const printJson = (value: unknown): void => writeJson(out, value, replacer);
  const print = terminalWriter(out);
  const printError = terminalWriter(process.stderr);
  const store = createApprovalsStore(approvalsFile);
  const desired = assemble(input);
  if (action === 'list') {
    const gated = Object.values(desired.servers).filter((s) => GATED_SCOPES.has(s.scope));
    const names = new Set([...gated.map((s) => s.name), ...Object.keys(input.approvals)]);
    const rows = [...names].sort().map((name) => {
      const s = desired.servers[name];
      const hash = s && GATED_SCOPES.has(s.scope) ? approvalHash(s.config) : undefined;
      const state = hash === undefined ? 'not configured' : approvalState(name, hash, input.approvals);
      const decision = Object.hasOwn(input.approvals, name) ? input.approvals[name]! : undefined;
      // A decision for another hash than the entry's now decides nothing: it is stale (decision 261).
      const stale = decision !== undefined && hash !== undefined && decision.hash !== hash;
      return { name, scope: s?.scope ?? '-', state, stored: decision?.status ?? '-', ...(stale ? { stale } : {}) };
    });
    if (json) writeJson(out, { projectRoot, approvalsFile, servers: rows }, maskingReplacer(mask), 2);
    else {
      print(mask(`Approvals for ${projectRoot} (${approvalsFile})\n`));
      const stored = (r: (typeof rows)[number]) => ('stale' in r ? `${r.stored}, stale (for an older config)` : r.stored);
      print(formatTable(['SERVER', 'SCOPE', 'NOW', 'STORED'], rows.map((r) => [r.name, r.scope, r.state, stored(r)]), mask));
    }
    return 0;
  }
  const name = command.server;
  if (action === 'forget') {
    // Exit 1 when there is nothing to forget: a mistyped NAME must not look like a success.
    if (!Object.hasOwn(input.approvals, name)) {
      const error = `nothing stored for ${name} in ${projectRoot}`;
      if (json) printJson({ ok: false, server: name, error });
      else printError(mask(`mcp-live: ${terminalSafe(error)} (${approvalsFile})\n`));
      return 1;
    }
    await store.decide(projectRoot, name, undefined);
    if (json) printJson({ ok: true, server: name, action: 'forgot' });
    else print(mask(`forgot ${terminalSafe(name)} for ${projectRoot}\n`));
    return 0;
  }
  const s = desired.servers[name];
  if (!s) throw new UsageError(`no server named "${name}" is configured in ${projectRoot}`);
  if (!GATED_SCOPES.has(s.scope)) {
    throw new UsageError(`"${name}" comes from ${s.scope} settings, which need no approval`);
  }
  const hash = approvalHash(s.config);
  if (command.hash !== undefined && command.hash !== hash) {
    const review = reviewEntry(s.config, serverKind(name), s.scope);
    const error = `${name} changed since it was shown (its hash is now ${hash}); review it again`;
    if (json) printJson({ ok: false, server: name, error, hash, config: review.config });
    else printError(`${mask(`mcp-live: ${terminalSafe(error)}:\n`)}${formatReview(review.lines, written)}`);
    return 1;
  }
  const status = action === 'approve' ? 'approved' : 'rejected';
  await store.decide(projectRoot, name, { hash, status });
  const review = reviewEntry(s.config, serverKind(name), s.scope);
  if (json) {
    printJson({ ok: true, server: name, action: status, hash, source: s.source, config: review.config });
  } else {
    // Each piece escaped where it is put in, as the review's values are: the writer is only the net.
    print(`${mask(`${status} ${terminalSafe(name)} for ${terminalSafe(projectRoot)}\n  source  ${terminalSafe(s.source)}\n`)}${formatReview(review.lines, written)}  hash    ${hash}\n`);
  }
  return 0;
}

/**
 * Review lines as `  label   value`, one a line, each value masked by `mask` (the secret net, see
 * `createWrittenTextMasker` for a repository's entry) and then rendered terminal-safe with its
 * `\n` shown (decision 164); a value that needed escapes says so (decision 165).
 */
export function formatReview(lines: readonly ReviewLine[], mask: (text: string) => string = (text) => text): string {
  return lines
    .map((l) => {
      const value = mask(l.value);
      const note = hasUnsafeCharacters(value) ? `  (${UNSAFE_TEXT_NOTE})` : '';
      return `${note === '' ? ' ' : '!'} ${terminalSafe(l.label).padEnd(7)} ${terminalSafe(value)}${note}\n`;
    })
    .join('');
}
