import { describe, expect, it } from 'vitest';
import {
  LEGACY_VERDICT_HORIZON_MS,
  MODERN_VERDICT_HORIZON_MS,
  eraOfVersion,
  eraVerdictOf,
  freshVerdict,
  sameVerdict,
} from '../../../src/model/tools/eraVerdict.js';
import type { EraVerdict } from '../../../src/model/connection.js';
import { eraMemory } from '../../../src/sinks/mcp/eraMemory.js';
import { surfaceRecordOf, type SurfaceRecord } from '../../../src/sinks/stores/surfaceStore.js';
import { fingerprint } from '../../../src/model/reconcile/fingerprint.js';
import type { ResolvedServerConfig } from '../../../src/model/types.js';

const NOW = 1_800_000_000_000;
const legacy = (decidedAt: number): EraVerdict => ({ kind: 'legacy', decidedAt });
const modern = (decidedAt: number): EraVerdict => ({ kind: 'modern', discover: { supportedVersions: ['2026-07-28'], capabilities: {} }, decidedAt });

describe('era verdicts (decision 380)', () => {
  it('a verdict is used until its horizon: 7 days for legacy, 1 day for modern; never one dated in the future', () => {
    expect(freshVerdict(legacy(NOW - LEGACY_VERDICT_HORIZON_MS + 1), NOW)).toEqual(legacy(NOW - LEGACY_VERDICT_HORIZON_MS + 1));
    expect(freshVerdict(legacy(NOW - LEGACY_VERDICT_HORIZON_MS), NOW)).toBeUndefined();
    expect(freshVerdict(modern(NOW - MODERN_VERDICT_HORIZON_MS + 1), NOW)?.kind).toBe('modern');
    expect(freshVerdict(modern(NOW - MODERN_VERDICT_HORIZON_MS), NOW)).toBeUndefined();
    expect(freshVerdict(legacy(NOW + 1), NOW)).toBeUndefined();
    expect(freshVerdict(undefined, NOW)).toBeUndefined();
  });

  it('reads back only well-formed verdicts', () => {
    expect(eraVerdictOf(legacy(5))).toEqual(legacy(5));
    expect(eraVerdictOf(modern(5))).toEqual(modern(5));
    for (const bad of [null, 'legacy', { kind: 'legacy' }, { kind: 'legacy', decidedAt: 'x' }, { kind: 'modern', decidedAt: 1 }, { kind: 'modern', decidedAt: 1, discover: {} }, { kind: 'other', decidedAt: 1 }]) {
      expect(eraVerdictOf(bad)).toBeUndefined();
    }
  });

  it('the era of a revision; the same decision is the same kind and date', () => {
    expect(eraOfVersion('2026-07-28')).toBe('modern');
    expect(eraOfVersion('2025-11-25')).toBe('legacy');
    expect(eraOfVersion('2024-11-05')).toBe('legacy');
    expect(sameVerdict(legacy(1), legacy(1))).toBe(true);
    expect(sameVerdict(legacy(1), legacy(2))).toBe(false);
    expect(sameVerdict(legacy(1), modern(1))).toBe(false);
    expect(sameVerdict(undefined, undefined)).toBe(true);
  });

  it('a surface record keeps its verdict; a malformed one is dropped alone, the record kept', () => {
    const record = { name: 'a', fingerprint: 'f', hash: 'h', seenAt: 1, surface: { tools: [], prompts: [], resources: [], resourceTemplates: [] } };
    expect(surfaceRecordOf('f', { ...record, era: modern(3) })?.era).toEqual(modern(3));
    const torn = surfaceRecordOf('f', { ...record, era: { kind: 'modern', decidedAt: 3 } });
    expect(torn).toEqual(record);
  });
});

describe('eraMemory', () => {
  const config: ResolvedServerConfig = { transport: 'stdio', command: 'srv', args: [], env: {}, headers: {}, timeout: 1000 };
  const store = () => {
    const records = new Map<string, SurfaceRecord>();
    return { records, get: (k: string) => records.get(k), put: (r: SurfaceRecord) => void records.set(r.fingerprint, r) };
  };

  it('remembers a verdict before the record exists, writes it into a record that does, and forgets it', () => {
    const s = store();
    let now = NOW;
    const eras = eraMemory(s, () => now);
    eras.remember('a', config, legacy(NOW));
    expect(eras.recall(config)).toEqual(legacy(NOW));
    expect(s.records.size).toBe(0);
    const key = fingerprint(config);
    s.records.set(key, { name: 'a', fingerprint: key, hash: 'h', seenAt: 1, surface: { tools: [], prompts: [], resources: [], resourceTemplates: [] } });
    eras.remember('a', config, modern(NOW));
    expect(s.records.get(key)?.era).toEqual(modern(NOW));
    // Past the horizon it is not used, and the connect probes again.
    now = NOW + MODERN_VERDICT_HORIZON_MS;
    expect(eras.recall(config)).toBeUndefined();
    now = NOW;
    eras.forget(config);
    expect(eras.recall(config)).toBeUndefined();
    expect(s.records.get(key)).not.toHaveProperty('era');
  });

  it('a fresh memory reads the record a earlier session wrote', () => {
    const s = store();
    const key = fingerprint(config);
    s.records.set(key, { name: 'a', fingerprint: key, hash: 'h', seenAt: 1, surface: { tools: [], prompts: [], resources: [], resourceTemplates: [] }, era: legacy(NOW - 1000) });
    expect(eraMemory(s, () => NOW).recall(config)).toEqual(legacy(NOW - 1000));
  });
});
