import type { PromptInfo, ResourceInfo, ResourceTemplateInfo, ToolInfo } from '../types.js';

/**
 * What a server shows of itself (decision 195): its tools, prompts, resources and templates as it
 * listed them (unfiltered, in name order), its `instructions` and `serverInfo`. The record of it,
 * keyed by the connection fingerprint, lists a lazy server without a process and is what a later
 * surface is compared with (rug-pull detection).
 */
export interface ServerSurface {
  tools: readonly ToolInfo[];
  prompts: readonly PromptInfo[];
  resources: readonly ResourceInfo[];
  resourceTemplates: readonly ResourceTemplateInfo[];
  instructions?: string;
  serverInfo?: { name: string; version: string; title?: string };
}

/**
 * What changed about one tool (or prompt) between two surfaces. `definition`: it differs from its
 * pin, and the approved text to tell how is no longer recorded (decision 307).
 */
export type SurfaceChangeKind = 'added' | 'removed' | 'description' | 'schema' | 'annotations' | 'definition';

/**
 * One difference between a recorded surface and a new one, for the `surface-changed` event and
 * the approval dialog. `before` / `after` are terminal-safe and cut to a bound, with the length
 * of the whole when cut (`… (12,345 characters)`): the description, or the canonical JSON of a
 * schema or the annotations.
 */
export interface SurfaceChange {
  kind: 'tool' | 'prompt' | 'instructions';
  /** The tool's or prompt's own name on its server ('' for `instructions`). */
  name: string;
  change: SurfaceChangeKind;
  before?: string;
  after?: string;
}
