import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { ServerIdentity, ServerRequestHandlers } from '../../model/connection.js';
import type { ResolvedServerConfig } from '../../model/types.js';
import { withoutUndefined } from '../../model/withoutUndefined.js';

/**
 * What the client offers, from the handlers it has: form elicitation with the schema's defaults
 * applied to what the user left out, roots (the session's may change; an entry's own list is
 * fixed — a change reconnects), sampling only with a model.
 */
export function clientCapabilities({ elicit, sample, roots }: ServerRequestHandlers, fixedRoots = false): ClientCapabilities {
  return {
    ...(elicit ? { elicitation: { form: { applyDefaults: true } } } : {}),
    ...(roots ? { roots: fixedRoots ? {} : { listChanged: true } } : {}),
    ...(sample ? { sampling: {} } : {}),
  };
}

/**
 * The session's handlers as one server gets them (decision 243): an entry's `roots: false` takes
 * the roots capability away (a server given its directories in its args keeps them), a list of
 * its own answers `roots/list` instead of the session's, absent leaves the session's.
 */
export function handlersFor(config: ResolvedServerConfig, handlers: ServerRequestHandlers): ServerRequestHandlers {
  const own = config.roots;
  if (own === undefined) return handlers;
  const { roots: _session, ...rest } = handlers;
  return own === false ? rest : { ...rest, roots: () => own };
}

export function identityOf(info: { name: string; version: string; title?: string } | undefined, instructions: string | undefined): ServerIdentity {
  return withoutUndefined({
    info: info === undefined ? undefined : withoutUndefined({ name: info.name, version: info.version, title: info.title }),
    instructions: instructions === undefined || instructions === '' ? undefined : instructions,
  });
}

