import { parseArgs } from 'node:util';

/** A bad command line: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Options shared by every command (SPEC §9). */
export interface CommonOptions {
  cwd: string;
  profile: string;
  userSettings?: string;
  systemSettings?: string;
  mcpConfig: string[];
  allowedMcpServerNames?: string[];
  approvalsFile?: string;
  debounceMs?: number;
  demo: boolean;
  reconcile: 'incremental' | 'full';
}

export type CliCommand =
  | { kind: 'session'; json: boolean; options: CommonOptions }
  | { kind: 'status'; json: boolean; options: CommonOptions }
  | { kind: 'plan'; json: boolean; options: CommonOptions }
  | { kind: 'approvals'; action: 'list'; json: boolean; options: CommonOptions }
  | {
      kind: 'approvals';
      action: 'approve' | 'reject' | 'forget';
      server: string;
      /** `--hash H`: decide only if the entry's approval hash is still H. */
      hash?: string;
      json: boolean;
      options: CommonOptions;
    }
  | { kind: 'help' };

export const USAGE = `Usage:
  mcp-live [options]            interactive session
  mcp-live --json [options]     headless: NDJSON events on stdout, JSON commands on stdin
  mcp-live status [--json]      connect once, print every server's state, exit (1 if any error)
  mcp-live plan [--json]        dry run: servers, sources, admission and reasons; spawns nothing
  mcp-live approvals list | approve NAME [--hash H] | reject NAME [--hash H] | forget NAME

Options:
  --cwd DIR                         workspace directory (default: the current directory)
  --profile NAME                    settings directory .NAME (default: qwen)
  --user-settings FILE              user settings file (default: ~/.NAME/settings.json)
  --system-settings FILE            system (admin) settings file
  --mcp-config FILE                 extra {"mcpServers": …} file (repeatable)
  --allowed-mcp-server-names a,b    upper bound on the servers that may connect
  --approvals-file FILE             approvals store (default: ~/.NAME/mcpApprovals.json)
  --debounce MS                     settle time for file changes (default: 300)
  --reconcile incremental|full      full restarts every server on any change (for comparison)
  --demo                            run on the bundled demo workspace
  --json                            machine-readable output
  -h, --help                        this text
`;

/** Parses argv (without node and the script). Throws {@link UsageError} naming the bad flag. */
export function parseCliArgs(argv: readonly string[], defaults: { cwd: string }): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        cwd: { type: 'string' },
        profile: { type: 'string' },
        'user-settings': { type: 'string' },
        'system-settings': { type: 'string' },
        'mcp-config': { type: 'string', multiple: true },
        'allowed-mcp-server-names': { type: 'string' },
        'approvals-file': { type: 'string' },
        debounce: { type: 'string' },
        hash: { type: 'string' },
        reconcile: { type: 'string' },
        demo: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };

  const debounce = values.debounce;
  let debounceMs: number | undefined;
  if (debounce !== undefined) {
    debounceMs = Number(debounce);
    if (!/^\d+$/.test(debounce) || !Number.isSafeInteger(debounceMs)) {
      throw new UsageError(`--debounce expects a whole number of milliseconds, got "${debounce}"`);
    }
  }
  const reconcile = values.reconcile ?? 'incremental';
  if (reconcile !== 'incremental' && reconcile !== 'full') {
    throw new UsageError(`--reconcile expects "incremental" or "full", got "${reconcile}"`);
  }
  const profile = values.profile ?? 'qwen';
  if (!/^[A-Za-z0-9._-]+$/.test(profile) || profile === '.' || profile === '..') {
    throw new UsageError(`--profile expects a plain name such as "qwen" or "gemini", got "${profile}"`);
  }
  const allowed = values['allowed-mcp-server-names']
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (allowed?.length === 0) {
    throw new UsageError('--allowed-mcp-server-names needs at least one name (a,b or globs such as "git*")');
  }
  const options: CommonOptions = {
    cwd: values.cwd ?? defaults.cwd,
    profile,
    userSettings: values['user-settings'],
    systemSettings: values['system-settings'],
    mcpConfig: values['mcp-config'] ?? [],
    allowedMcpServerNames: allowed,
    approvalsFile: values['approvals-file'],
    debounceMs,
    demo: values.demo ?? false,
    reconcile,
  };
  const json = values.json ?? false;
  const [command, ...rest] = positionals;
  if (values.hash !== undefined && command !== 'approvals') throw new UsageError('--hash goes with approvals approve|reject');
  switch (command) {
    case undefined:
      return { kind: 'session', json, options };
    case 'status':
    case 'plan':
      if (rest.length > 0) throw new UsageError(`${command} takes no arguments, got "${rest.join(' ')}"`);
      return { kind: command, json, options };
    case 'approvals': {
      const [action = 'list', server, ...extra] = rest;
      if (extra.length > 0) throw new UsageError(`approvals: unexpected "${extra.join(' ')}"`);
      if (action === 'list') return { kind: 'approvals', action, json, options };
      if (action === 'approve' || action === 'reject' || action === 'forget') {
        if (!server) throw new UsageError(`approvals ${action} needs a server NAME`);
        const hash = values.hash;
        if (hash !== undefined && (action === 'forget' || !/^[0-9a-f]{64}$/.test(hash))) {
          throw new UsageError(
            action === 'forget' ? 'approvals forget takes no --hash' : `--hash expects the 64 hex digits of an approval hash, got "${hash}"`,
          );
        }
        return { kind: 'approvals', action, server, ...(hash === undefined ? {} : { hash }), json, options };
      }
      throw new UsageError(`approvals: unknown action "${action}" (list, approve, reject, forget)`);
    }
    default:
      throw new UsageError(`unknown command "${command}" (status, plan, approvals, or none for a session)`);
  }
}
