import { filter, firstValueFrom, skipWhile } from 'rxjs';
import { reasonText } from '../../model/report/messages.js';
import type { ServerStatus } from '../../model/report/status.js';
import type { OAuthManager } from '../../sinks/remote/oauthManager.js';
import type { StatusView } from '../../sinks/mcp/statusBoard.js';
import type { Reconciler } from '../reconciler.js';
import type { Authorization, McpLiveAuth } from '../types.js';

export interface AuthGroupDeps {
  board: Pick<StatusView, 'status' | 'changes$'>;
  reconciler: Pick<Reconciler, 'resolvedConfig' | 'reconnect'>;
  oauth: Pick<OAuthManager, 'authenticate' | 'logout'>;
  /** Aborts when the session ends: every authorization still waiting for a browser ends with it. */
  sessionEnded: AbortSignal;
  /** Tells the host and the events the URL the user must open (`auth-required`, `onAuthorizationUrl`). */
  announce: (server: string, url: string) => void;
  warn: (message: string) => void;
}

/** What {@link authGroup} makes: the group, and what follows the servers for `oauth.autoStart`. */
export interface SessionAuth {
  auth: McpLiveAuth;
  /** Per change of one server (decision 171: never a scan of every server per change). */
  autoStart: (status: ServerStatus) => void;
}

/** Authorizations `oauth.autoStart` begins in a row for one server before it waits for the user. */
const MAX_AUTO_STARTS = 3;

/** `live.auth` (decision 83): authorizations a user starts, and those `oauth.autoStart` starts. */
export function authGroup({ board, reconciler: r, oauth, sessionEnded, announce, warn }: AuthGroupDeps): SessionAuth {
  /** Authorizations under way, by server: a second `/mcp auth NAME` joins the first. */
  const authorizing = new Map<string, Promise<Authorization>>();

  const authenticate = (name: string, signal?: AbortSignal): Promise<Authorization> => {
    const running = authorizing.get(name);
    if (running) return running;
    const status = board.status(name);
    const config = r.resolvedConfig(name);
    if (status === undefined || config === undefined || status.state === 'blocked') {
      const why = status?.reason === undefined ? 'is not configured' : `is not admitted (${reasonText(status.reason, status.notAllowedBy, status.detail)})`;
      return Promise.reject(new Error(`server "${name}" ${why}; nothing is contacted for it until it is`));
    }
    const started = new Promise<Authorization>((resolveUrl, rejectUrl) => {
      let announced = false;
      const completed = oauth
        .authenticate(name, config, {
          signal: signal === undefined ? sessionEnded : AbortSignal.any([signal, sessionEnded]),
          onAuthorizationUrl: (url) => {
            announced = true;
            announce(name, url);
            resolveUrl({ url, completed });
          },
        })
        .then(() => {
          // The reconnect starts with `connecting`; its outcome is the first state after that —
          // this server's own changes, followed before the reconnect begins (not every server's list).
          const outcome = firstValueFrom(
            board.changes$.pipe(
              filter((s) => s.name === name),
              skipWhile((s) => s.state !== 'connecting'),
              filter((s) => s.state !== 'connecting' && s.state !== 'disconnected'),
            ),
          );
          r.reconnect(name);
          return outcome;
        })
        .then((after) => {
          if (after?.state !== 'connected') throw new Error(`server "${name}" did not connect after authorization: ${after?.error ?? after?.state ?? 'gone'}`);
        })
        .finally(() => authorizing.delete(name));
      completed.catch(() => undefined);
      // A machine grant needs no browser: the authorization is under way already.
      void completed.then(
        () => !announced && resolveUrl({ completed }),
        (error: unknown) => (announced ? undefined : rejectUrl(error instanceof Error ? error : new Error(String(error)))),
      );
    });
    authorizing.set(name, started);
    started.catch(() => authorizing.delete(name));
    return started;
  };

  /**
   * `oauth.autoStart`: a server that comes to need authorization starts it at once (headless:
   * `auth-required` goes out without a command). At most {@link MAX_AUTO_STARTS} times in a row
   * without a connect in between, so a server that refuses every token cannot loop the user
   * through the browser.
   */
  const autoStarts = new Map<string, number>();
  const autoStart = (s: ServerStatus): void => {
    if (s.state === 'connected') autoStarts.delete(s.name);
    if (s.state !== 'needs_auth' || authorizing.has(s.name) || r.resolvedConfig(s.name)?.oauth?.autoStart !== true) return;
    const count = autoStarts.get(s.name) ?? 0;
    if (count >= MAX_AUTO_STARTS) return;
    autoStarts.set(s.name, count + 1);
    authenticate(s.name).then(
      ({ completed }) => completed.catch(() => undefined),
      (error: unknown) => warn(`authorization of ${s.name} did not start: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  return {
    auth: {
      authenticate: (name, { signal } = {}) => authenticate(name, signal),
      logout: (name) => oauth.logout(name),
    },
    autoStart,
  };
}
