import { assemble } from '../model/assemble.js';
import { approvalHash, approvalState } from '../model/approvalHash.js';
import { GATED_SCOPES } from '../model/types.js';
import type { McpLiveOptions } from '../createMcpLive.js';
import { readInputsOnce } from '../planReport.js';
import { createApprovalsStore } from '../sinks/approvalsStore.js';
import { UsageError } from './args.js';
import { formatTable } from './statusCommand.js';

/**
 * `mcp-live approvals list | approve NAME | reject NAME | forget NAME`. A decision is bound to
 * the server's current config (its approval hash); a running session sees it through its
 * watcher on the approvals file.
 */
export async function runApprovals(
  options: McpLiveOptions,
  action: 'list' | 'approve' | 'reject' | 'forget',
  server: string | undefined,
  json: boolean,
  out: NodeJS.WritableStream,
): Promise<number> {
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
  const name = server!;
  if (action === 'forget') {
    await store.decide(projectRoot, name, undefined);
  } else {
    const s = desired.servers[name];
    if (!s) throw new UsageError(`no server named "${name}" is configured in ${projectRoot}`);
    if (!GATED_SCOPES.has(s.scope)) {
      throw new UsageError(`"${name}" comes from ${s.scope} settings, which need no approval`);
    }
    await store.decide(projectRoot, name, { hash: approvalHash(s.config), status: action === 'approve' ? 'approved' : 'rejected' });
  }
  const done = { approve: 'approved', reject: 'rejected', forget: 'forgot' }[action];
  if (json) out.write(`${JSON.stringify({ ok: true, server: name, action: done })}\n`);
  else out.write(`${done} ${name} for ${projectRoot}\n`);
  return 0;
}
