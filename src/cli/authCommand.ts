import type { McpLiveOptions } from '../live/types.js';
import { settingsPaths } from '../live/settingsPaths.js';
import { assemble } from '../model/settings/assemble.js';
import { reasonText } from '../model/report/messages.js';
import { desiredServers } from '../model/reconcile/plan.js';
import { readInputsOnce } from '../live/planReport.js';
import { createOAuthManager } from '../sinks/remote/oauthManager.js';
import { createOAuthTokenStore } from '../sinks/stores/oauthTokenStore.js';
import type { CliCommand } from './args.js';
import { terminalWriter, writeJson } from './terminalWriter.js';
import { UsageError } from './usageError.js';

/**
 * `mcp-live auth NAME`: authorizes a remote server without a session — prints the URL to open,
 * waits for the browser to come back to 127.0.0.1, stores the token, exits 0. A running session
 * picks the token up on its next pass (`/reload`). Only an admitted server is contacted: a
 * pending, rejected or excluded one is refused before anything goes over the network.
 * `mcp-live auth logout NAME` forgets its tokens (and a client mcp-live registered for it).
 */
export async function runAuth(
  options: McpLiveOptions,
  command: Extract<CliCommand, { kind: 'auth' }>,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { server, json } = command;
  // Terminal-safe (decision 164): a server's name and its authorization URL are not ours.
  const print = terminalWriter(out);
  const oauth = createOAuthManager(createOAuthTokenStore(settingsPaths(options).oauthTokens));
  const report = (data: Record<string, unknown>): void => {
    if (json) writeJson(out, { ok: true, server, ...data });
  };
  if (command.action === 'logout') {
    const forgotten = await oauth.logout(server);
    report({ forgotten });
    if (!json) print(forgotten > 0 ? `Forgot the tokens of ${server}.\n` : `No tokens stored for ${server}.\n`);
    return 0;
  }
  const { input, cwd, home } = await readInputsOnce(options);
  const desired = assemble(input);
  const { wanted, blocked } = desiredServers(desired, options.allowedMcpServerNames, options.env ?? process.env, cwd, home);
  const why = blocked[server];
  if (why) throw new UsageError(`auth: ${server} is not admitted (${reasonText(why.reason, why.notAllowedBy, why.detail)}); nothing is contacted for it until it is`);
  const resolved = wanted[server]?.resolved;
  if (resolved === undefined) {
    throw new UsageError(wanted[server] ? `auth: ${server} has an invalid entry: ${wanted[server].invalid}` : `auth: no server "${server}" is configured`);
  }
  await oauth.authenticate(server, resolved, {
    onAuthorizationUrl: (url) => {
      if (json) writeJson(out, { type: 'auth-required', server, url });
      else print(`Open this URL in a browser to authorize ${server}:\n\n  ${url}\n\nWaiting for the browser…\n`);
    },
  });
  report({ authenticated: true });
  if (!json) print(`Authorized ${server}; the token is stored in ${oauth.store.file}.\n`);
  return 0;
}
