import { firstValueFrom } from 'rxjs';
import type { CallProgress } from '../model/connection.js';
import { checkAnswer } from '../model/elicitationForm.js';
import type { ResultEvent } from '../model/report/events.js';
import type { McpLive } from '../live/types.js';
import type { QualifiedTool } from '../model/report/status.js';
import { untilAborted } from '../model/untilAborted.js';

/** Answer to one stdin line, plus whether the session should stop. */
export interface CommandOutcome {
  result: Omit<ResultEvent, 'ts'>;
  quit: boolean;
  /**
   * `data` is a server's answer (`call`, `get-prompt`, `read-resource`): written as the server
   * gave it, not through the secrets net.
   */
  verbatimData?: boolean;
}

type Json = Record<string, unknown>;

/**
 * A line's `cmd`, `id` and `wait`, without running it: what the session needs to schedule it
 * (`{}` when malformed).
 */
export function peekCommand(line: string): { cmd?: unknown; id?: string | number; wait?: unknown } {
  try {
    const msg: unknown = JSON.parse(line);
    if (typeof msg === 'object' && msg !== null && !Array.isArray(msg)) return { cmd: (msg as Json).cmd, id: idOf(msg as Json), wait: (msg as Json).wait };
  } catch {
    // malformed: runJsonCommand answers it
  }
  return {};
}

function idOf(cmd: Json): string | number | undefined {
  return typeof cmd.id === 'string' || typeof cmd.id === 'number' ? cmd.id : undefined;
}

/**
 * Executes one line of the `--json` command protocol (docs/contract.md, "Commands on stdin"). A
 * malformed line gets `{ok: false, error}` and changes nothing; `id` is echoed when present.
 * `signal` cancels a request in flight (`call`, `get-prompt`, `read-resource`: it then fails with
 * the signal's reason); `onProgress` hears a `call`'s progress notifications.
 */
export async function runJsonCommand(
  line: string,
  live: McpLive,
  { signal, onProgress }: { signal?: AbortSignal; onProgress?: (progress: CallProgress) => void } = {},
): Promise<CommandOutcome> {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    return fail(undefined, `malformed command: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
    return fail(undefined, 'malformed command: expected a JSON object such as {"cmd":"status"}');
  }
  const cmd = msg as Json;
  const id = idOf(cmd);
  const server = () => {
    if (typeof cmd.server !== 'string' || cmd.server === '') throw new CommandError(`"${String(cmd.cmd)}" needs "server"`);
    return cmd.server;
  };
  try {
    switch (cmd.cmd) {
      case 'approve':
        await live.approvals.approve(server(), { persist: cmd.persist !== false, ...hashOf(cmd) });
        return ok(id, { approved: cmd.server, persist: cmd.persist !== false });
      case 'approve-all':
        return ok(id, { approved: await live.approvals.approveAll(shownSet(cmd)) });
      case 'reject':
        await live.approvals.reject(server(), hashOf(cmd));
        return ok(id, { rejected: cmd.server });
      case 'reload':
        live.reload();
        return ok(id, { reloading: true });
      case 'enable':
      case 'disable': {
        // Session-only unless `"persist": true` (then the user settings file the entry came from).
        if (cmd.persist !== undefined && typeof cmd.persist !== 'boolean') throw new CommandError('"persist" must be true or false');
        const options = { persist: cmd.persist === true };
        return ok(id, cmd.cmd === 'enable' ? await live.session.enable(server(), options) : await live.session.disable(server(), options));
      }
      case 'reconnect': {
        const name = server();
        if (!live.servers.reconnect(name)) throw new CommandError(`server "${name}" is not configured or not admitted`);
        return ok(id, { reconnecting: name });
      }
      case 'status':
        waitOf(cmd);
        return ok(id, { servers: live.servers.status() });
      case 'tools': {
        waitOf(cmd);
        if (cmd.schemas !== undefined && typeof cmd.schemas !== 'boolean') throw new CommandError('"schemas" must be true or false');
        return ok(id, { tools: (await firstValueFrom(live.tools.list$)).map((tool) => listedTool(tool, cmd.schemas === true)) });
      }
      case 'call': {
        if (typeof cmd.tool !== 'string') throw new CommandError('"call" needs "tool"');
        const timeout = timeoutOf(cmd);
        return { ...ok(id, await live.tools.call(cmd.tool, argsOf(cmd), { signal, timeout, onProgress })), verbatimData: true };
      }
      case 'elicit': {
        if (typeof cmd.id !== 'string') throw new CommandError('"elicit" needs "id": the id of the elicitation event');
        live.elicitation.answer(cmd.id, checkAnswer({ action: cmd.action, content: cmd.content }));
        return ok(id, { answered: cmd.id, action: cmd.action });
      }
      case 'get-prompt': {
        if (typeof cmd.name !== 'string' || cmd.name === '') throw new CommandError('"get-prompt" needs "name"');
        const args = argsOf(cmd);
        if (!Object.values(args).every((v) => typeof v === 'string')) throw new CommandError('a prompt\'s "args" are strings');
        const prompt = await live.prompts.get(cmd.name, args as Record<string, string>, { signal, ...serverOf(cmd) });
        return { ...ok(id, prompt), verbatimData: true };
      }
      case 'read-resource': {
        if (typeof cmd.uri !== 'string' || cmd.uri === '') throw new CommandError('"read-resource" needs "uri"');
        return { ...ok(id, await live.resources.read(cmd.uri, { signal, ...serverOf(cmd) })), verbatimData: true };
      }
      case 'auth': {
        // `auth-required` (with the URL) goes out as an event; the answer comes once connected.
        const name = server();
        const authorization = await live.auth.authenticate(name, { signal });
        await untilAborted(authorization.completed, signal);
        return ok(id, { authenticated: name });
      }
      case 'logout': {
        const name = server();
        return ok(id, { server: name, forgotten: await live.auth.logout(name) });
      }
      case 'quit':
        return { result: { type: 'result', ok: true, ...(id === undefined ? {} : { id }), data: { quitting: true } }, quit: true };
      default:
        return fail(
          id,
          `unknown cmd ${JSON.stringify(cmd.cmd)} (approve, approve-all, reject, enable, disable, reload, reconnect, status, tools, call, ` +
            `elicit, get-prompt, read-resource, auth, logout, quit)`,
        );
    }
  } catch (err) {
    return fail(id, err instanceof Error ? err.message : String(err));
  }
}

class CommandError extends Error {}

/**
 * One tool of `{"cmd":"tools"}` (decision 251): what the agent is offered now — `tools.list$`, so a
 * lazy server's recorded tools are there and withheld or blocked ones are not. Its qualified
 * name (what `call` takes), server, own name and description; the schemas with `"schemas": true`.
 */
function listedTool(tool: QualifiedTool, schemas: boolean): Json {
  return {
    name: tool.name,
    server: tool.server,
    tool: tool.tool,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(schemas && tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
    ...(schemas && tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
  };
}

/**
 * The commands that list what the session has: they answer once the first pass has planned
 * (every server known, decision 325), or with `"wait": "ready"` once it has ended.
 */
export const LISTINGS: ReadonlySet<unknown> = new Set(['status', 'tools']);

/** What a listing waits for: the plan (default), or with `"wait": "ready"` the first pass's end. */
export function waitOf(cmd: { wait?: unknown }): 'planned' | 'ready' {
  if (cmd.wait === undefined) return 'planned';
  if (cmd.wait === 'ready') return 'ready';
  throw new CommandError('"wait" must be "ready" (answer once the first pass has ended) or left out (answer now)');
}

/** The commands that send a request to a server (a prompt or a resource waits for the first pass to have ended). */
export const SERVER_REQUESTS: ReadonlySet<unknown> = new Set(['call', 'get-prompt', 'read-resource']);

/**
 * The commands `quit` cancels rather than waits for: a server's answer, or an authorization
 * waiting for a browser that may never come back.
 */
export const CANCELLED_ON_QUIT: ReadonlySet<unknown> = new Set([...SERVER_REQUESTS, 'auth']);

function argsOf(cmd: Json): Json {
  const args = cmd.args ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new CommandError('"args" must be a JSON object');
  return args as Json;
}

/** A call's own `timeout` in ms, if it gives one. */
function timeoutOf(cmd: Json): number | undefined {
  if (cmd.timeout === undefined) return undefined;
  if (typeof cmd.timeout !== 'number' || !Number.isFinite(cmd.timeout) || cmd.timeout <= 0) {
    throw new CommandError('"timeout" must be a positive number of milliseconds');
  }
  return cmd.timeout;
}

/** `server`: which server a prompt or resource request goes to, when the name alone does not say. */
function serverOf(cmd: Json): { server?: string } {
  if (cmd.server === undefined) return {};
  if (typeof cmd.server !== 'string' || cmd.server === '') throw new CommandError('"server" must be a server\'s name');
  return { server: cmd.server };
}

/** `hash`: the approval hash from `approval-required`, which binds a decision to what was shown. */
function hashOf(cmd: Json): { hash?: string } {
  if (cmd.hash === undefined) return {};
  if (typeof cmd.hash !== 'string' || cmd.hash === '') throw new CommandError('"hash" must be the string from approval-required');
  return { hash: cmd.hash };
}

/** `servers: [{name, hash}]` of `approve-all`: the set that was shown (default: the latest one). */
function shownSet(cmd: Json): { name: string; hash: string }[] | undefined {
  if (cmd.servers === undefined) return undefined;
  const valid =
    Array.isArray(cmd.servers) &&
    cmd.servers.every(
      (s: unknown) =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as Json).name === 'string' &&
        typeof (s as Json).hash === 'string',
    );
  if (!valid) throw new CommandError('"servers" must be a list of {"name", "hash"} from approval-required');
  return (cmd.servers as Json[]).map((s) => ({ name: s.name as string, hash: s.hash as string }));
}

function ok(id: string | number | undefined, data: unknown): CommandOutcome {
  return { result: { type: 'result', ok: true, ...(id === undefined ? {} : { id }), data }, quit: false };
}

function fail(id: string | number | undefined, error: string): CommandOutcome {
  return { result: { type: 'result', ok: false, ...(id === undefined ? {} : { id }), error }, quit: false };
}
