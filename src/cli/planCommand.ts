import type { McpLiveOptions } from '../createMcpLive.js';
import { createTextMasker, maskingReplacer } from '../model/secrets.js';
import { lspName } from '../model/lspConfig.js';
import { planReport, type PlannedServer } from '../planReport.js';
import { formatReview } from './approvalsCommand.js';
import { byKind, formatTable, formatWarnings, languageSection } from './statusCommand.js';

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
  const { mcp, lsp } = byKind(report.servers);
  const admission = (s: PlannedServer) =>
    s.error ?? (s.admitted ? 'would connect' : s.reason === 'settings_error' ? 'blocked: settings do not parse' : (s.message ?? s.reason ?? 'blocked'));
  const mcpRows = mcp.map((s) => [s.name, s.scope, s.transport ?? '-', s.fingerprint ?? '-', admission(s), s.target, s.source].map(mask));
  // Language servers as the interactive list shows them: a section of their own, by their own names.
  const lspRows = lsp.map((s) =>
    [lspName(s.name), s.scope, s.transport ?? '-', s.fingerprint ?? '-', admission(s), (s.languages ?? []).join(', ') || '-', s.target, s.source].map(mask),
  );
  out.write(mcp.length === 0 ? 'No MCP servers configured.\n' : formatTable(['SERVER', 'SCOPE', 'TRANSPORT', 'FINGERPRINT', 'ADMISSION', 'RUNS', 'SOURCE'], mcpRows));
  out.write(languageSection(['SERVER', 'SCOPE', 'TRANSPORT', 'FINGERPRINT', 'ADMISSION', 'LANGUAGES', 'RUNS', 'SOURCE'], lspRows));
  print(formatWarnings(report.servers));
  // Everything that decides what would run or where data goes (issue 11): the table's one-line
  // target does not show env, cwd, headers or trust. Entries go by their keys (`lsp:NAME`).
  print('\nEntries as written (literal secrets masked):\n');
  for (const s of report.servers) print(`${s.name} (${s.scope}, ${s.source})\n${formatReview(s.review)}`);
  return 0;
}
