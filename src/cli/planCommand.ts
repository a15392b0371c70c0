import type { McpLiveOptions } from '../createMcpLive.js';
import { createTextMasker, maskingReplacer } from '../model/secrets.js';
import { planReport } from '../planReport.js';
import { formatReview } from './approvalsCommand.js';
import { formatTable, formatWarnings } from './statusCommand.js';

/**
 * `mcp-live plan`: the dry run. Spawns nothing.
 *
 * Everything printed passes the session-wide secret net (issue 11): entries are already shown
 * as written with literal secrets masked; the net also catches a literal copy of a secret from
 * the environment (an arg that repeats `$GITHUB_TOKEN`'s value), token formats and URL
 * credentials anywhere, in the table and in every string of the JSON.
 */
export async function runPlan(options: McpLiveOptions, json: boolean, out: NodeJS.WritableStream): Promise<number> {
  const report = await planReport(options);
  const mask = createTextMasker(options.env ?? process.env);
  if (json) {
    out.write(`${JSON.stringify(report, maskingReplacer(mask), 2)}\n`);
    return 0;
  }
  const print = (text: string): void => void out.write(mask(text));
  print(`Workspace ${report.cwd}${report.trusted ? '' : ' (untrusted folder: workspace settings and .mcp.json ignored)'}\n`);
  if (report.settingsError !== undefined) print(`✖ ${report.settingsError}\n`);
  for (const n of report.notices) {
    if (n.type === 'settings-error') print(`! ${n.error}\n`);
    else if (n.type === 'log') print(`! ${n.message}\n`);
  }
  if (report.servers.length === 0) {
    print('No MCP servers configured.\n');
    return 0;
  }
  // Cells are masked before the columns are measured, so a mask never breaks the alignment.
  const rows = report.servers.map((s) =>
    [
      s.name,
      s.scope,
      s.transport ?? '-',
      s.fingerprint ?? '-',
      s.error ??
        (s.admitted ? 'would connect' : s.reason === 'settings_error' ? 'blocked: settings do not parse' : (s.message ?? s.reason ?? 'blocked')),
      s.target,
      s.source,
    ].map(mask),
  );
  out.write(formatTable(['SERVER', 'SCOPE', 'TRANSPORT', 'FINGERPRINT', 'ADMISSION', 'RUNS', 'SOURCE'], rows));
  print(formatWarnings(report.servers));
  // Everything that decides what would run or where data goes (issue 11): the table's one-line
  // target does not show env, cwd, headers or trust.
  print('\nEntries as written (literal secrets masked):\n');
  for (const s of report.servers) print(`${s.name} (${s.scope}, ${s.source})\n${formatReview(s.review)}`);
  return 0;
}
