import { fingerprint } from '../../model/reconcile/fingerprint.js';
import type { EraVerdict } from '../../model/connection.js';
import { freshVerdict } from '../../model/tools/eraVerdict.js';
import type { ResolvedServerConfig } from '../../model/types.js';
import type { SurfaceStore } from '../stores/surfaceStore.js';

/**
 * What a connector knows of servers' protocol eras (decision 380): the verdict a connect may use
 * instead of probing, per connection fingerprint, kept with the surface record.
 */
export interface EraMemory {
  /** The verdict to connect with, or undefined (none, or past its horizon): the connect probes. */
  recall(config: ResolvedServerConfig): EraVerdict | undefined;
  /** A verdict a connect found. */
  remember(name: string, config: ResolvedServerConfig, verdict: EraVerdict): void;
  /** The verdict did not hold (a connect that used it failed): the next connect probes. */
  forget(config: ResolvedServerConfig): void;
}

/**
 * The era memory over the surface records. A verdict found before the server's first record
 * exists is held in memory, and written with the record the surface keeper writes (it carries
 * the verdict the connection reports); a forgotten one is dropped from the record at once.
 */
export function eraMemory(store: Pick<SurfaceStore, 'get' | 'put'>, now: () => number = Date.now): EraMemory {
  /** This process's word on a fingerprint, over the record's: a verdict, or `null` once forgotten. */
  const held = new Map<string, EraVerdict | null>();
  return {
    recall(config) {
      const key = fingerprint(config);
      const mine = held.get(key);
      return freshVerdict(mine === null ? undefined : (mine ?? store.get(key)?.era), now());
    },
    remember(name, config, verdict) {
      const key = fingerprint(config);
      held.set(key, verdict);
      const record = store.get(key);
      if (record !== undefined) store.put({ ...record, name, era: verdict });
    },
    forget(config) {
      const key = fingerprint(config);
      held.set(key, null);
      const record = store.get(key);
      if (record?.era !== undefined) {
        const { era: _dropped, ...rest } = record;
        store.put(rest);
      }
    },
  };
}
