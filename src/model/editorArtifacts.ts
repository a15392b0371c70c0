/**
 * Names that editors and atomic writers leave beside a file while saving it: a temp file that is
 * renamed over the target, a swap file, a backup. They never hold settings, and reacting to them
 * would only cause extra reads (docs/contract.md, "Watching").
 */
const EDITOR_ARTIFACT = /(?:\.tmp|\.swp|~|\.orig)$/;

export function isEditorArtifact(name: string): boolean {
  return EDITOR_ARTIFACT.test(name);
}
