import type { BehaviorSubject } from 'rxjs';
import { admit } from '../../model/admission/admit.js';
import { admittedVerdict } from '../../model/reconcile/plan.js';
import { reasonText } from '../../model/report/messages.js';
import { serverNameProblem } from '../../model/serverKeys.js';
import { setServerDisabled } from '../../model/settings/serverEntryEdits.js';
import type { DesiredState } from '../../model/types.js';
import { editJsoncFile } from '../../sinks/stores/editJsoncFile.js';
import { editSessionLayer, type SessionLayer } from '../sessionLayers.js';
import type { EnablementChange, McpLiveOptions, McpLiveSession } from '../types.js';

export interface SessionGroupDeps {
  /** The desired state of the latest inputs. */
  desired: () => DesiredState | undefined;
  /** The session's own servers, and the pass that applies a change of them. */
  layer: SessionLayer;
  reload: () => void;
  /** `/mcp enable|disable` without `persist`: name → enabled, for this session only. */
  enablement: BehaviorSubject<Readonly<Record<string, boolean>>>;
  /** What an enable is checked against, as the pass checks it. */
  admission: Pick<McpLiveOptions, 'allowedMcpServerNames' | 'env'> & { cwd: string; home: string; userSettings: string };
}

/** `live.session`: this session's own changes to the servers, its layer and its enablement. */
export function sessionGroup({ desired: desiredNow, layer, reload, enablement, admission }: SessionGroupDeps): McpLiveSession {
  const edit = (name: string, config: Record<string, unknown> | undefined): void => {
    editSessionLayer(layer, name, config);
    reload();
  };

  /**
   * A session override, or (`persist`) the entry's `disabled` in the user settings file — the only
   * file that is the user's own: `.mcp.json` and workspace settings come with a repository,
   * extension manifests with an extension. A persisted change clears the override: the file decides.
   */
  const setEnablement = async (name: string, enabled: boolean, keep: boolean): Promise<EnablementChange> => {
    const server = desiredNow()?.servers[name];
    if (!server) throw new Error(`server "${name}" is not configured`);
    const { [name]: _previous, ...others } = enablement.getValue();
    if (keep) {
      if (server.scope !== 'user') {
        throw new Error(
          `${name} comes from ${server.scope} settings (${server.source}); --persist writes only your user settings ` +
            `(${admission.userSettings}): edit that file yourself, or ${enabled ? 'enable' : 'disable'} it for this session only`,
        );
      }
      await editJsoncFile(server.source, (text) => setServerDisabled(text, name, !enabled, server.source));
      enablement.next(others);
      return { server: name, enabled, file: server.source };
    }
    enablement.next({ ...others, [name]: enabled });
    const desired = desiredNow();
    const admitted = enabled && desired ? admit(name, server, desired, admission.allowedMcpServerNames) : undefined;
    if (admitted?.admitted === false) return { server: name, enabled, stillBlocked: reasonText(admitted.reason, admitted.notAllowedBy, admitted.detail) };
    // Admitted, it may still be held in this folder (decision 303).
    const verdict = enabled && desired ? admittedVerdict(server, desired, admission.env ?? process.env, admission.cwd, admission.home) : undefined;
    return verdict === undefined || 'wanted' in verdict
      ? { server: name, enabled }
      : { server: name, enabled, stillBlocked: reasonText(verdict.blocked.reason, undefined, verdict.blocked.detail) };
  };

  return {
    add: (name, config) => {
      // A name the assembly would drop (`lsp:`) or no command could name is refused, not lost (decision 193).
      const badName = serverNameProblem(name);
      if (badName !== undefined) throw new Error(`session.add: ${badName}`);
      edit(name, config);
    },

    remove: (name) => edit(name, undefined),

    enable: (name, { persist = false } = {}) => setEnablement(name, true, persist),
    disable: (name, { persist = false } = {}) => setEnablement(name, false, persist),
  };
}
