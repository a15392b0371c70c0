import { assemble } from '../model/assemble.js';
import { approvalHash, approvalState } from '../model/approvalHash.js';
import { GATED_SCOPES } from '../model/types.js';
import type { McpLiveOptions } from '../createMcpLive.js';
import { readInputsOnce } from '../planReport.js';
import { createApprovalsStore } from '../sinks/approvalsStore.js';
import { UsageError, type CliCommand } from './args.js';
import { reviewEntry, type ReviewLine } from '../model/reviewEntry.js';
import { serverKind } from '../model/lspConfig.js';
import { formatTable } from './statusCommand.js';

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
  const store = createApprovalsStore(approvalsFile);
  const desired = assemble(input);
  if (action === 'list') {
    const gated = Object.values(desired.servers).filter((s) => GATED_SCOPES.has(s.scope));
    const names = new Set([...gated.map((s) => s.name), ...Object.keys(input.approvals)]);
    const rows = [...names].sort().map((name) => {
      const s = desired.servers[name];
      const state = s && GATED_SCOPES.has(s.scope) ? approvalState(name, approvalHash(s.config), input.approvals) : 'not configured';
      const stored = Object.hasOwn(input.approvals, name) ? input.approvals[name]!.status : '-';
      return { name, scope: s?.scope ?? '-', state, stored };
    });
    if (json) out.write(`${JSON.stringify({ projectRoot, approvalsFile, servers: rows }, null, 2)}\n`);
    else {
      out.write(`Approvals for ${projectRoot} (${approvalsFile})\n`);
      out.write(formatTable(['SERVER', 'SCOPE', 'NOW', 'STORED'], rows.map((r) => [r.name, r.scope, r.state, r.stored])));
    }
    return 0;
  }
  const name = command.server;
  if (action === 'forget') {
    // Exit 1 when there is nothing to forget: a mistyped NAME must not look like a success.
    if (!Object.hasOwn(input.approvals, name)) {
      const error = `nothing stored for ${name} in ${projectRoot}`;
      if (json) out.write(`${JSON.stringify({ ok: false, server: name, error })}\n`);
      else process.stderr.write(`mcp-live: ${error} (${approvalsFile})\n`);
      return 1;
    }
    await store.decide(projectRoot, name, undefined);
    if (json) out.write(`${JSON.stringify({ ok: true, server: name, action: 'forgot' })}\n`);
    else out.write(`forgot ${name} for ${projectRoot}\n`);
    return 0;
  }
  const s = desired.servers[name];
  if (!s) throw new UsageError(`no server named "${name}" is configured in ${projectRoot}`);
  if (!GATED_SCOPES.has(s.scope)) {
    throw new UsageError(`"${name}" comes from ${s.scope} settings, which need no approval`);
  }
  const hash = approvalHash(s.config);
  if (command.hash !== undefined && command.hash !== hash) {
    const review = reviewEntry(s.config, serverKind(name));
    const error = `${name} changed since it was shown (its hash is now ${hash}); review it again`;
    if (json) out.write(`${JSON.stringify({ ok: false, server: name, error, hash, config: review.config })}\n`);
    else process.stderr.write(`mcp-live: ${error}:\n${formatReview(review.lines)}`);
    return 1;
  }
  const status = action === 'approve' ? 'approved' : 'rejected';
  await store.decide(projectRoot, name, { hash, status });
  const review = reviewEntry(s.config, serverKind(name));
  if (json) {
    out.write(`${JSON.stringify({ ok: true, server: name, action: status, hash, source: s.source, config: review.config })}\n`);
  } else {
    out.write(`${status} ${name} for ${projectRoot}\n  source  ${s.source}\n${formatReview(review.lines)}  hash    ${hash}\n`);
  }
  return 0;
}

/** Review lines as `  label   value`, one a line. */
export function formatReview(lines: readonly ReviewLine[]): string {
  return lines.map((l) => `  ${l.label.padEnd(7)} ${l.value}\n`).join('');
}
