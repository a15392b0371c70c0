import type { McpLiveOptions } from '../live/types.js';
import { createOutputMasks } from '../model/settings/secrets.js';
import { terminalSafe } from '../model/terminalText.js';
import { lspName } from '../model/serverKeys.js';
import { reasonTextForShell } from '../model/report/messages.js';
import { planReport, type PlannedServer } from '../live/planReport.js';
import { formatReview } from './approvalsCommand.js';
import { byKind, formatTable, formatWarnings, languageSection } from './statusCommand.js';
import { terminalWriter, writeJson } from './terminalWriter.js';

/**
 * `mcp-live plan`: the dry run. Spawns nothing.
 *
 * Everything printed passes the session-wide secret net (decision 55): entries are already shown
 * as written (a user-scope entry's literal secrets masked, a repository's shown: decision 166);
 * the net also catches a literal copy of a secret from the environment (an arg that repeats
 * `$GITHUB_TOKEN`'s value) everywhere, and token formats and URL credentials everywhere but in
 * a repository's own entry (decision 167), in the table and in every string of the JSON. Text
 * is terminal-safe (decision 164), and so is the JSON (decision 168).
 */
export async function runPlan(options: McpLiveOptions, json: boolean, out: NodeJS.WritableStream): Promise<number> {
  const report = await planReport(options);
  // A repository's entry is its own text: the net masks real secrets only in it (decision 167).
  const masks = createOutputMasks(options.env ?? process.env);
  const { mask } = masks;
  if (json) {
    writeJson(out, report, masks.replacer, 2);
    return 0;
  }
  // Every line terminal-safe (decision 164): entries, paths and errors are a file's text.
  const write = terminalWriter(out);
  const print = (text: string): void => write(mask(text));
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
  // A pending server names the command that approves it (decision 321).
  const admission = (s: PlannedServer) =>
    s.error ??
    (s.admitted
      ? 'would connect'
      : s.reason === 'settings_error'
        ? 'blocked: settings do not parse'
        : s.reason === 'pending_approval'
          ? reasonTextForShell(s.name, s.reason)
          : (s.message ?? s.reason ?? 'blocked'));
  const runs = (s: PlannedServer) => masks.forScope(s.scope)(s.target);
  const mcpRows = mcp.map((s) => [...[s.name, s.scope, s.transport ?? '-', s.fingerprint ?? '-', admission(s)].map(mask), runs(s), mask(s.source)]);
  // Language servers as the interactive list shows them: a section of their own, by their own names.
  const lspRows = lsp.map((s) => [
    ...[lspName(s.name), s.scope, s.transport ?? '-', s.fingerprint ?? '-', admission(s), (s.languages ?? []).join(', ') || '-'].map(mask),
    runs(s),
    mask(s.source),
  ]);
  write(mcp.length === 0 ? 'No MCP servers configured.\n' : formatTable(['SERVER', 'SCOPE', 'TRANSPORT', 'FINGERPRINT', 'ADMISSION', 'RUNS', 'SOURCE'], mcpRows));
  write(languageSection(['SERVER', 'SCOPE', 'TRANSPORT', 'FINGERPRINT', 'ADMISSION', 'LANGUAGES', 'RUNS', 'SOURCE'], lspRows));
  write(formatWarnings(report.servers, mask));
  // Everything that decides what would run or where data goes (decision 54): the table's one-line
  // target does not show env, cwd, headers or trust. Entries go by their keys (`lsp:NAME`).
  print('\nEntries as written (literal secrets masked):\n');
  for (const s of report.servers) {
    write(`${terminalSafe(mask(s.name))} (${s.scope}, ${terminalSafe(mask(s.source))})\n${formatReview(s.review, masks.forScope(s.scope))}`);
  }
  return 0;
}
