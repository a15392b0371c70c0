import { getOwn, isPlainObject, setOwn } from '../ownProperties.js';

/**
 * VS Code's `{"servers": {…}, "inputs": […]}` shape of a servers file (decision 327), read as the
 * `mcpServers` entries it means. A VS Code entry is the same idea as ours — `command`, `args`,
 * `env`, `cwd`, `url`, `headers` keep their meaning — and differs in three ways, mapped here:
 *
 * - `type` picks the transport: `"http"` is Streamable HTTP (ours too, with `url`), `"sse"` SSE;
 *   an entry with a `url` and no `type` is `"http"`, as VS Code tries it first; `"stdio"` drops
 *   a `url`, which in our entries would win over `command`.
 * - Its variables: `${env:NAME}` is our `${NAME}`, `${workspaceFolder}` our `${workspacePath}`.
 *   `${input:ID}` (a value VS Code prompts for) stays as written: the validator refuses the entry
 *   in words (mcp-live has no prompt to ask it with), as it refuses `envFile`.
 * - `inputs` is the file's list of those prompts: nothing reads it here (see {@link vscodeShapeNotes}).
 *
 * Every other field is kept as written (our own `timeout`, `includeTools`, … work there too).
 * The result is a new map, its keys own data (`__proto__` is a name like any other, decision 12);
 * entries that are not objects are kept for the validator to refuse.
 */
export function fromVsCodeServers(servers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const entries: Record<string, unknown> = {};
  for (const name of Object.keys(servers)) setOwn(entries, name, fromVsCodeEntry(getOwn(servers, name)));
  return entries;
}

function fromVsCodeEntry(entry: unknown): unknown {
  if (!isPlainObject(entry)) return entry;
  const mapped: Record<string, unknown> = {};
  for (const key of Object.keys(entry)) setOwn(mapped, key, withOurVariables(getOwn(entry, key)));
  const type = getOwn(mapped, 'type');
  if (type === 'stdio') {
    delete mapped.url;
    delete mapped.httpUrl;
  } else if (type === undefined && getOwn(mapped, 'url') !== undefined) {
    setOwn(mapped, 'type', 'http');
  }
  return mapped;
}

/** VS Code's variables that have ours: `${env:NAME}` → `${NAME}`, `${workspaceFolder}` → `${workspacePath}`. */
const VSCODE_VARIABLE = /\$\{(?:env:([A-Za-z_][A-Za-z0-9_]*)|(workspaceFolder))\}/g;

/** A field's value with VS Code's variables written as ours; strings inside arrays and objects too. */
function withOurVariables(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(VSCODE_VARIABLE, (_m, env: string | undefined) => (env === undefined ? '${workspacePath}' : `\${${env}}`));
  // Fields are at most a map of strings deep (`env`, `headers`, `oauth`); deeper is kept as written.
  if (depth > 2) return value;
  if (Array.isArray(value)) return value.map((item) => withOurVariables(item, depth + 1));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(out, key, withOurVariables(getOwn(value, key), depth + 1));
    return out;
  }
  return value;
}

/**
 * What a servers file in VS Code's shape says that is not read, in words for a `settings-error`
 * (`key` the top-level key it concerns): a non-empty `inputs` list, and `servers` beside our own
 * `mcpServers` (which wins: it is the key this file format is named for).
 */
export function vscodeShapeNotes(file: string, raw: Readonly<Record<string, unknown>>): { key: string; error: string }[] {
  const notes: { key: string; error: string }[] = [];
  const servers = getOwn(raw, 'servers');
  if (Object.hasOwn(raw, 'mcpServers') && isPlainObject(servers) && Object.keys(servers).length > 0) {
    notes.push({ key: 'servers', error: `${file}: both "mcpServers" and VS Code's "servers"; reading "mcpServers", ignoring "servers"` });
  }
  const inputs = getOwn(raw, 'inputs');
  if (!Object.hasOwn(raw, 'mcpServers') && isPlainObject(servers) && Array.isArray(inputs) && inputs.length > 0) {
    notes.push({
      key: 'inputs',
      error:
        `${file}: "inputs" (VS Code's prompted values) are not supported; a server that uses one (\${input:…}) is invalid — ` +
        'read the value from the environment instead, ${env:NAME} or ${NAME}',
    });
  }
  return notes;
}

/** Whether a servers file is in VS Code's shape: a `servers` object and no `mcpServers`. */
export function isVsCodeShape(raw: Readonly<Record<string, unknown>>): boolean {
  return !Object.hasOwn(raw, 'mcpServers') && isPlainObject(getOwn(raw, 'servers'));
}
