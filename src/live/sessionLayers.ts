import { BehaviorSubject } from 'rxjs';

/** A layer of entries by name that only this session holds (servers, language servers). */
export type SessionLayer = BehaviorSubject<Record<string, unknown>>;

/** What this session adds to what the files say: its own servers, approvals and enablement. */
export interface SessionLayers {
  /** `session.add`: MCP servers of scope `session`. */
  readonly servers: SessionLayer;
  /** `lsp.addSession`: language servers of scope `session`. */
  readonly lsp: SessionLayer;
  /** Approvals for this session only (`approve` without `persist`): name → the hash approved. */
  readonly approvals: BehaviorSubject<Readonly<Record<string, string>>>;
  /** `/mcp enable|disable` without `persist`: name → enabled, for this session only. */
  readonly enablement: BehaviorSubject<Readonly<Record<string, boolean>>>;
  readonly complete: () => void;
}

export function sessionLayers(): SessionLayers {
  const servers: SessionLayer = new BehaviorSubject(Object.create(null) as Record<string, unknown>);
  const lsp: SessionLayer = new BehaviorSubject(Object.create(null) as Record<string, unknown>);
  const approvals = new BehaviorSubject<Readonly<Record<string, string>>>({});
  const enablement = new BehaviorSubject<Readonly<Record<string, boolean>>>({});
  return {
    servers,
    lsp,
    approvals,
    enablement,
    complete: () => [servers, lsp, approvals, enablement].forEach((layer) => layer.complete()),
  };
}

/**
 * Sets (`config`) or drops (`undefined`) one entry of a session layer. The copy has no prototype,
 * as the layer's first value: `__proto__` is a name like any other (it would set a plain
 * object's prototype instead of adding the entry).
 */
export function editSessionLayer(layer: SessionLayer, name: string, config: Record<string, unknown> | undefined): void {
  const next: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, layer.getValue());
  if (config === undefined) delete next[name];
  else next[name] = config;
  layer.next(next);
}
