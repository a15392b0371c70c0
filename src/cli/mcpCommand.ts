import type { McpLiveOptions } from '../live/types.js';
import { settingsPaths } from '../live/settingsPaths.js';
import { addServerEntry, removeServerEntry, serversIn, setServerDisabled } from '../model/settings/serverEntryEdits.js';
import { reviewEntry, type ReviewLine } from '../model/admission/reviewEntry.js';
import { createOutputMasks, createTextMasker } from '../model/settings/secrets.js';
import { hasUnsafeCharacters, terminalSafe, UNSAFE_TEXT_NOTE } from '../model/terminalText.js';
import { isPlainObject } from '../model/ownProperties.js';
import { terminalWriter, writeJson } from './terminalWriter.js';
import { GATED_SCOPES, type Scope } from '../model/types.js';
import { transportKind, validateServerConfig } from '../model/settings/validate.js';
import { planReport, readInputsOnce, type PlannedServer } from '../live/planReport.js';
import { editJsoncFile } from '../sinks/stores/editJsoncFile.js';
import type { EditableScope, McpCommand } from './args.js';
import { formatReview } from './approvalsCommand.js';
import { EDITABLE_SCOPES } from './serverEntryFromFlags.js';
import { alignColumns, formatTable } from './statusCommand.js';
import { UsageError } from './usageError.js';

/**
 * What `mcp list` says about state: there is no channel to a running session yet, so it shows
 * what a session started now would decide.
 */
export const LIST_NOTE =
  'No running session is asked (mcp-live has no channel to one yet): ADMISSION is what a session started now would decide, as `mcp-live plan` shows it.';

/** Where a name is defined: one of the settings sources (docs/contract.md, "Settings sources"). */
interface Definition {
  scope: Scope;
  file: string;
}

/** A refusal: one line, exit 1 (with `--json`, `{ok: false, error}`), like every failure but a usage error. */
class McpCommandError extends Error {}

/**
 * `mcp-live mcp add | remove | list | get | enable | disable`. `add` and `remove` edit one file —
 * user settings, `.mcp.json` (project) or the workspace settings — keeping its comments and
 * layout (`editJsoncFile`); `enable` and `disable` edit the user settings file only, as
 * `/mcp enable|disable --persist` does (decision 250). A running session applies the change
 * through its watcher like any edit. Everything printed passes the session-wide secret net, as
 * `plan` does.
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
      case 'enable':
      case 'disable':
        return await setDisabled(options, command.server, command.action === 'disable', command.json ? printJson : undefined, print);
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
      ...(planned.era === undefined ? {} : { era: planned.era }),
      ...(overridden.length > 0 ? { overrides: overridden } : {}),
    });
    return 0;
  }
  const head = [
    { label: 'scope', value: planned.scope },
    { label: 'source', value: planned.source },
    { label: 'admission', value: admissionWords(planned) },
    ...(planned.era === undefined ? [] : [{ label: 'protocol', value: eraWords(planned.era) }]),
  ];
  // Masked line by line before escaping; a repository's entry by value only (decision 167).
  const { mask, forScope } = createOutputMasks(options.env ?? process.env);
  // One table, so the values line up after the longest label (`extensionToLanguage`, `headersHelper`).
  const rows = [...reviewRows(head, mask), ...reviewRows(planned.review, forScope(planned.scope))];
  write(`${terminalSafe(mask(server))}\n${alignColumns(rows)}`);
  if (overridden.length > 0) print(`  also defined in ${describe(overridden)} (overridden by this one)\n`);
  return 0;
}

/** The era a connect found (decision 380): `2026-07-28 (modern, found 2026-12-07)`, `2025 era (found …)`. */
function eraWords(era: NonNullable<PlannedServer['era']>): string {
  const found = `found ${era.decidedAt.slice(0, 10)}`;
  return era.kind === 'legacy' ? `2025 era (${found})` : `${(era.versions ?? []).join(', ') || 'modern'} (modern, ${found})`;
}

/**
 * Review lines as the rows of {@link alignColumns}: `  label` (`! label` when the value needed
 * escapes, decision 165) and the value, masked by `mask` and then made terminal-safe — what
 * `formatReview` prints, in columns.
 */
function reviewRows(lines: readonly ReviewLine[], mask: (text: string) => string): string[][] {
  return lines.map((l) => {
    const value = mask(l.value);
    const unsafe = hasUnsafeCharacters(value);
    return [`${unsafe ? '!' : ' '} ${terminalSafe(l.label)}`, `${terminalSafe(value)}${unsafe ? `  (${UNSAFE_TEXT_NOTE})` : ''}`];
  });
}

/**
 * `mcp disable NAME` writes `disabled: true` into the entry, `mcp enable NAME` removes the key —
 * in the user settings file only, the one file that is the user's own, through the edit
 * `/mcp enable|disable --persist` makes (decision 250). An entry from anywhere else is refused
 * with what to do instead; so is a language server (its entries are `lspServers`). Writing what
 * the file already says writes nothing.
 */
async function setDisabled(options: McpLiveOptions, server: string, disabled: boolean, json: JsonOut, print: (t: string) => void): Promise<number> {
  const action = disabled ? 'disable' : 'enable';
  const planned = (await planReport(options)).servers.find((s) => s.name === server);
  if (planned === undefined) throw new McpCommandError(await notDefinedIn(options, server, undefined));
  if (planned.kind === 'lsp') {
    throw new McpCommandError(
      `"${server}" is a language server: mcp ${action} edits MCP servers; ${disabled ? 'set "disabled": true in' : 'remove "disabled" from'} its entry in ${planned.scope} settings (${planned.source})`,
    );
  }
  const userFile = settingsPaths(options).user;
  if (planned.scope !== 'user') throw new McpCommandError(await notTheUsersOwn(options, planned, disabled, userFile));
  const file = planned.source;
  let was = false;
  const { changed } = await editJsoncFile(file, (text) => {
    const entry = serversIn(text, file)[server];
    was = isPlainObject(entry) && entry.disabled === true;
    return was === disabled ? text : setServerDisabled(text, server, disabled, file);
  });
  const after = (await planReport(options)).servers.find((s) => s.name === server);
  if (json) {
    json({ ok: true, action: disabled ? 'disabled' : 'enabled', server, scope: planned.scope, file, changed, ...admissionJson(after) });
    return 0;
  }
  const where = `user settings (${file})`;
  if (disabled) {
    print(changed ? `Disabled ${server} in ${where}; a running session disconnects it when it reads the file.\n` : `${server} is already disabled in ${where}; nothing was written.\n`);
    return 0;
  }
  const head = changed ? `Enabled ${server} in ${where}` : `${server} is not disabled in ${where}; nothing was written`;
  if (after !== undefined && !after.admitted) print(`${head} — it stays blocked: ${after.error ?? after.message ?? after.reason ?? 'blocked'}\n`);
  else print(changed ? `${head}; a running session connects it when it reads the file.\n` : `${head}.\n`);
  return 0;
}

/** Why `enable`/`disable` leaves an entry of another scope alone, and what the user can do instead. */
async function notTheUsersOwn(options: McpLiveOptions, planned: PlannedServer, disabled: boolean, userFile: string): Promise<string> {
  const { name, scope, source } = planned;
  const action = disabled ? 'disable' : 'enable';
  const shadowed = (await definitionsOf(options, name)).some((d) => d.scope === 'user');
  const head =
    `${name} comes from ${scope} settings (${source}); mcp ${action} writes only your user settings (${userFile})` +
    (shadowed ? `, whose entry of that name the ${scope} one overrides` : '');
  if (!disabled) return `${head}: remove "disabled" from that file yourself`;
  const reject = GATED_SCOPES.has(scope) ? `reject it (mcp-live approvals reject ${name}), ` : '';
  return `${head}: ${reject}add "${name}" to mcp.excluded in your user settings, or edit that file yourself`;
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
