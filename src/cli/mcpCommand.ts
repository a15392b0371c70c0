import type { McpLiveOptions } from '../createMcpLive.js';
import { settingsPaths } from '../settingsPaths.js';
import { addServerEntry, removeServerEntry, serversIn } from '../model/serverEntryEdits.js';
import { reviewEntry } from '../model/reviewEntry.js';
import { createOutputMasks, createTextMasker } from '../model/secrets.js';
import { terminalSafe } from '../model/terminalText.js';
import { terminalWriter, writeJson } from './terminalWriter.js';
import { GATED_SCOPES, type Scope } from '../model/types.js';
import { transportKind, validateServerConfig } from '../model/validate.js';
import { planReport, readInputsOnce, type PlannedServer } from '../planReport.js';
import { editJsoncFile } from '../sinks/editJsoncFile.js';
import type { EditableScope, McpCommand } from './args.js';
import { formatReview } from './approvalsCommand.js';
import { EDITABLE_SCOPES } from './serverEntryFromFlags.js';
import { formatTable } from './statusCommand.js';
import { UsageError } from './usageError.js';

/**
 * What `mcp list` says about state: there is no channel to a running session yet, so it shows
 * what a session started now would decide.
 */
export const LIST_NOTE =
  'No running session is asked (mcp-live has no channel to one yet): ADMISSION is what a session started now would decide, as `mcp-live plan` shows it.';

/** Where a name is defined: one source of SPEC §2. */
interface Definition {
  scope: Scope;
  file: string;
}

/** A refusal: one line, exit 1 (with `--json`, `{ok: false, error}`), like every failure but a usage error. */
class McpCommandError extends Error {}

/**
 * `mcp-live mcp add | remove | list | get`. `add` and `remove` edit one file — user settings,
 * `.mcp.json` (project) or the workspace settings — keeping its comments and layout
 * (`editJsoncFile`); a running session applies the change through its watcher like any edit.
 * Everything printed passes the session-wide secret net, as `plan` does.
 */
export async function runMcpCommand(options: McpLiveOptions, command: McpCommand, out: NodeJS.WritableStream): Promise<number> {
  // Terminal-safe (decisions 164, 168); a repository's entry masked by value only (decision 167).
  const { mask, replacer } = createOutputMasks(options.env ?? process.env);
  const write = terminalWriter(out);
  const print = (text: string): void => write(mask(text));
  const printJson = (value: unknown): void => writeJson(out, value, replacer, 2);
  try {
    switch (command.action) {
      case 'add':
        return await add(options, command, command.json ? printJson : undefined, print);
      case 'remove':
        return await remove(options, command, command.json ? printJson : undefined, print);
      case 'list':
        return await list(options, command.json ? printJson : undefined, print);
      case 'get':
        return await get(options, command.server, command.json ? printJson : undefined, print, write);
    }
  } catch (error) {
    // A file that does not parse, a refused write (symlink, another user's file), a missing name.
    if (!(error instanceof Error) || error instanceof UsageError) throw error;
    if (command.json) printJson({ ok: false, error: error.message });
    else terminalWriter(process.stderr)(mask(`mcp-live: ${error.message}\n`));
    return 1;
  }
}

type JsonOut = ((value: unknown) => void) | undefined;

/** The file a scope edits; the workspace has none when it is the home directory (`--cwd ~`). */
function fileOf(options: McpLiveOptions, scope: EditableScope): string {
  const paths = settingsPaths(options);
  if (scope === 'user') return paths.user;
  if (scope === 'project') return paths.project;
  if (paths.workspace === undefined) {
    throw new McpCommandError(`the workspace settings file is your user settings file (${paths.user}); use --scope user`);
  }
  return paths.workspace;
}

async function add(options: McpLiveOptions, command: Extract<McpCommand, { action: 'add' }>, json: JsonOut, print: (t: string) => void): Promise<number> {
  const { server, scope, entry } = command;
  const file = fileOf(options, scope);
  let replaced = false;
  await editJsoncFile(file, (text) => {
    const result = addServerEntry(text, server, entry, { label: file, replace: command.force });
    replaced = result.replaced;
    return result.text;
  });
  const planned = (await planReport(options)).servers.find((s) => s.name === server);
  const winner = planned !== undefined && planned.source !== file ? { scope: planned.scope, source: planned.source } : undefined;
  const review = reviewEntry(entry);
  if (json) {
    json({ ok: true, action: replaced ? 'replaced' : 'added', server, scope, file, transport: command.transport, entry: review.config, ...admissionJson(planned), ...(winner ? { overriddenBy: winner } : {}) });
    return 0;
  }
  print(`${replaced ? 'Replaced' : 'Added'} ${command.transport} server ${server} in ${scope} settings (${file}):\n${formatReview(review.lines)}`);
  if (winner) print(`note: ${winner.scope} settings (${winner.source}) also define ${server}, and that entry wins\n`);
  else if (planned) print(`${admissionWords(planned)}${GATED_SCOPES.has(scope) && !planned.admitted ? approvalHint(server) : ''}\n`);
  return 0;
}

async function remove(options: McpLiveOptions, command: Extract<McpCommand, { action: 'remove' }>, json: JsonOut, print: (t: string) => void): Promise<number> {
  const { server } = command;
  let scope = command.scope;
  if (scope === undefined) {
    const editable = (await definitionsOf(options, server)).filter((d) => isEditable(d.scope));
    if (editable.length > 1) {
      throw new McpCommandError(`"${server}" is defined in ${describe(editable)}; say which with --scope`);
    }
    scope = editable[0]?.scope as EditableScope | undefined;
    if (scope === undefined) throw new McpCommandError(await notDefinedIn(options, server, undefined));
  }
  const file = fileOf(options, scope);
  let missing = false;
  await editJsoncFile(file, (text) => {
    missing = !Object.hasOwn(serversIn(text, file), server);
    return missing ? text : removeServerEntry(text, server, file);
  });
  if (missing) throw new McpCommandError(await notDefinedIn(options, server, { scope, file }));
  if (json) json({ ok: true, action: 'removed', server, scope, file });
  else print(`Removed ${server} from ${scope} settings (${file})\n`);
  return 0;
}

async function list(options: McpLiveOptions, json: JsonOut, print: (t: string) => void): Promise<number> {
  const report = await planReport(options);
  const mask = createTextMasker(options.env ?? process.env);
  const servers = report.servers.map((s) => ({
    name: s.name,
    scope: s.scope,
    source: s.source,
    ...transportJson(s),
    ...admissionJson(s),
  }));
  if (json) {
    json({ state: 'plan', note: LIST_NOTE, cwd: report.cwd, trusted: report.trusted, ...(report.settingsError ? { settingsError: report.settingsError } : {}), servers });
    return 0;
  }
  if (report.settingsError !== undefined) print(`✖ ${report.settingsError}\n`);
  if (servers.length === 0) print('No MCP servers configured.\n');
  else print(formatTable(['SERVER', 'SCOPE', 'ADMISSION', 'SOURCE'], report.servers.map((s) => [s.name, s.scope, admissionWords(s), s.source]), mask));
  print(`${LIST_NOTE}\n`);
  return 0;
}

async function get(options: McpLiveOptions, server: string, json: JsonOut, print: (t: string) => void, write: (t: string) => void): Promise<number> {
  const report = await planReport(options);
  const planned = report.servers.find((s) => s.name === server);
  if (planned === undefined) throw new McpCommandError(await notDefinedIn(options, server, undefined));
  const overridden = (await definitionsOf(options, server)).filter((d) => d.file !== planned.source);
  if (json) {
    json({
      name: server,
      scope: planned.scope,
      source: planned.source,
      ...transportJson(planned),
      ...admissionJson(planned),
      config: planned.config,
      readsEnv: planned.readsEnv,
      review: planned.review,
      ...(overridden.length > 0 ? { overrides: overridden } : {}),
    });
    return 0;
  }
  const head = [
    { label: 'scope', value: planned.scope },
    { label: 'source', value: planned.source },
    { label: 'admission', value: admissionWords(planned) },
  ];
  // Masked line by line before escaping; a repository's entry by value only (decision 167).
  const { mask, forScope } = createOutputMasks(options.env ?? process.env);
  write(`${terminalSafe(mask(server))}\n${formatReview(head, mask)}${formatReview(planned.review, forScope(planned.scope))}`);
  if (overridden.length > 0) print(`  also defined in ${describe(overridden)} (overridden by this one)\n`);
  return 0;
}

/** Every source that defines `name` (before precedence), in assembly order. */
async function definitionsOf(options: McpLiveOptions, name: string): Promise<Definition[]> {
  const { input } = await readInputsOnce(options);
  return input.sources.filter((s) => Object.hasOwn(s.servers, name)).map((s) => ({ scope: s.scope, file: s.file }));
}

/** Why `remove` or `get` found nothing where it looked, naming where the name is defined instead. */
async function notDefinedIn(options: McpLiveOptions, server: string, looked: Definition | undefined): Promise<string> {
  const where = looked === undefined ? 'user, project or workspace settings' : `${looked.scope} settings (${looked.file})`;
  const elsewhere = (await definitionsOf(options, server)).filter((d) => d.file !== looked?.file);
  if (elsewhere.length === 0) return `"${server}" is not defined in ${where}; no MCP server of that name is configured`;
  const editable = elsewhere.some((d) => isEditable(d.scope));
  return `"${server}" is not defined in ${where}; it is defined in ${describe(elsewhere)}${editable ? '' : ', which mcp-live does not edit'}`;
}

function isEditable(scope: Scope): boolean {
  return (EDITABLE_SCOPES as readonly string[]).includes(scope);
}

function describe(definitions: readonly Definition[]): string {
  return definitions.map((d) => `${d.scope} settings (${d.file})`).join(' and ');
}

/** The transport the entry asks for, blocked or not (`plan` resolves only admitted entries). */
function transportJson(s: PlannedServer): { transport?: PlannedServer['transport'] } {
  if (s.transport !== undefined) return { transport: s.transport };
  const valid = validateServerConfig(s.config);
  const kind = valid.ok ? transportKind(valid.config) : undefined;
  return kind === undefined ? {} : { transport: kind };
}

function admissionJson(s: PlannedServer | undefined): Record<string, unknown> {
  if (s === undefined) return {};
  return {
    admitted: s.admitted,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.message ? { message: s.message } : {}),
    ...(s.error ? { error: s.error } : {}),
  };
}

function admissionWords(s: PlannedServer): string {
  if (s.error !== undefined) return s.error;
  return s.admitted ? 'would connect' : `blocked: ${s.message ?? s.reason ?? 'blocked'}`;
}

function approvalHint(server: string): string {
  return ` — it comes from a repository's file: approve it in the session or with \`mcp-live approvals approve ${server}\``;
}
