import { LOG_LEVEL_META_KEY, ProtocolError, ProtocolErrorCode, type Client, type LoggingLevel } from '@modelcontextprotocol/client';
import type { ElicitationAnswer, ElicitationForm, ServerRequestHandlers } from '../../model/connection.js';
import { maskingReplacer } from '../../model/settings/secrets.js';
import { MAX_TIMER_MS } from './timerLimit.js';

/** The server that asks: its name, the entry's request `timeout`, and its secrets' masker. */
export interface AskingServer {
  readonly name: string;
  readonly timeoutMs: number;
  readonly redact: (text: string) => string;
}

/** The answer to `sampling/createMessage` of a session without an `onSampling` hook. */
const NO_MODEL =
  'mcp-live has no model to sample with; a host that has one serves sampling/createMessage through the onSampling option of createMcpLive';

/**
 * The server's own requests, each answered by the session's handler; a request without one
 * gets a JSON-RPC error (the capability is not advertised, but a server may ask anyway).
 */
export function answerServerRequests(client: Client, server: AskingServer, { elicit, sample, roots, log, resourceUpdated }: ServerRequestHandlers): void {
  if (log) {
    // A server may log what its entry gave it (a token in a URL it fetched): masked like its stderr.
    client.setNotificationHandler('notifications/message', ({ params }) =>
      log(server.name, JSON.parse(JSON.stringify(params, maskingReplacer(server.redact))) as typeof params),
    );
  }
  if (resourceUpdated) {
    client.setNotificationHandler('notifications/resources/updated', ({ params }) => resourceUpdated(server.name, params.uri));
  }
  if (elicit) {
    client.setRequestHandler('elicitation/create', async ({ params }, ctx) => {
      if (params.mode === 'url') throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'mcp-live answers form-mode elicitation only');
      const form = { message: params.message, requestedSchema: params.requestedSchema };
      const answer = await elicitWithin(server, elicit, form, ctx.mcpReq.signal);
      // Accepting with nothing filled in still carries `{}`: the SDK then fills in the schema's
      // defaults (the `applyDefaults` we advertise), which it skips when `content` is absent.
      return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
    });
  }
  if (sample) {
    client.setRequestHandler('sampling/createMessage', ({ params }, ctx) =>
      sample(server.name, params, { signal: ctx.mcpReq.signal }),
    );
  }
  if (roots) client.setRequestHandler('roots/list', () => ({ roots: [...roots()] }));
  client.fallbackRequestHandler = ({ method }) => {
    const why = method === 'sampling/createMessage' ? NO_MODEL : `mcp-live does not answer ${method}`;
    return Promise.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, why));
  };
}

/**
 * The level a request to a 2026-07-28 server asks its log messages at, when the session hears
 * them (decision 369): all of them. Such a server logs only to a request whose `_meta` names a
 * level (`io.modelcontextprotocol/logLevel`), and the SDK's client names none; those who hear the
 * messages filter them by their own level, as they do a 2025 server's, which is never asked for
 * a level either.
 */
const LOG_LEVEL_ASKED: LoggingLevel = 'debug';

/**
 * A request's `_meta`: the caller's (`meta`), with the log level asked for on a connection in the
 * modern era when the session has a log handler (decision 369); `undefined` when there is none.
 */
export function withLogLevel(client: Client, hearsLogs: boolean, meta?: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!hearsLogs || client.getProtocolEra() !== 'modern') return meta;
  return { [LOG_LEVEL_META_KEY]: LOG_LEVEL_ASKED, ...meta };
}

/**
 * Asks the handler, within the entry's `timeout`: a form nobody answers in time is cancelled,
 * and so is one the server cancels or whose connection goes away (the handler sees `signal`).
 */
function elicitWithin(
  server: AskingServer,
  elicit: NonNullable<ServerRequestHandlers['elicit']>,
  form: ElicitationForm,
  serverSignal: AbortSignal,
): Promise<ElicitationAnswer> {
  const ms = Math.min(server.timeoutMs, MAX_TIMER_MS);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`not answered within ${ms} ms: cancelled (raise "timeout" in the server's entry)`)),
    ms,
  );
  const stop = (): void => controller.abort(serverSignal.reason);
  serverSignal.addEventListener('abort', stop, { once: true });
  const cancelled = new Promise<ElicitationAnswer>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }),
  );
  return Promise.race([elicit(server.name, form, { signal: controller.signal, timeoutMs: ms }), cancelled]).finally(() => {
    clearTimeout(timer);
    serverSignal.removeEventListener('abort', stop);
    // Whatever answered, the handler's form is over: a queue waiting on the signal lets go of it.
    controller.abort(new Error('answered'));
  });
}
