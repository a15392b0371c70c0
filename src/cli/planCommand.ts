import type { McpLiveOptions } from '../createMcpLive.js';
import { planReport } from '../planReport.js';
import { formatTable } from './statusCommand.js';

/** `mcp-live plan`: the dry run. Spawns nothing. */
export async function runPlan(options: McpLiveOptions, json: boolean, out: NodeJS.WritableStream): Promise<number> {
  const report = await planReport(options);
  if (json) {
    out.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  out.write(`Workspace ${report.cwd}${report.trusted ? '' : ' (untrusted folder: workspace settings and .mcp.json ignored)'}\n`);
  for (const n of report.notices) {
    if (n.type === 'settings-error') out.write(`! ${n.error}\n`);
    else if (n.type === 'log') out.write(`! ${n.message}\n`);
  }
  if (report.servers.length === 0) {
    out.write('No MCP servers configured.\n');
    return 0;
  }
  out.write(
    formatTable(
      ['SERVER', 'SCOPE', 'TRANSPORT', 'FINGERPRINT', 'ADMISSION', 'RUNS', 'SOURCE'],
      report.servers.map((s) => [
        s.name,
        s.scope,
        s.transport ?? '-',
        s.fingerprint ?? '-',
        s.error ?? (s.admitted ? 'would connect' : (s.message ?? s.reason ?? 'blocked')),
        s.target,
        s.source,
      ]),
    ),
  );
  return 0;
}
