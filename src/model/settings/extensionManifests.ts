/** The extension manifests of the clients whose settings mcp-live reads, by the profile that reads them. */
export const CLIENT_MANIFESTS: readonly { profile: string; client: string; manifest: string }[] = [
  { profile: 'qwen', client: 'Qwen Code', manifest: 'qwen-extension.json' },
  { profile: 'gemini', client: 'Gemini CLI', manifest: 'gemini-extension.json' },
];

/** The manifests of other clients' extensions, for a profile whose own manifest is `manifest`. */
export function foreignManifests(manifest: string): readonly { profile: string; client: string; manifest: string }[] {
  return CLIENT_MANIFESTS.filter((m) => m.manifest !== manifest);
}

/**
 * The warning for an extension directory that holds another client's manifest and not the
 * profile's own (decision 253): its servers are not read, and how to get them — Qwen Code's own
 * `extensions install` converts a Gemini CLI extension into its format, and the other client's
 * profile reads that client's extensions directory.
 */
export function foreignManifestWarning(w: {
  extension: string;
  dir: string;
  manifest: string;
  found: { profile: string; client: string; manifest: string };
  /** The other profile's extensions directory. */
  otherDir: string;
}): string {
  const own = CLIENT_MANIFESTS.find((m) => m.manifest === w.manifest);
  const install = own?.profile === 'qwen' && w.found.profile === 'gemini' ? `install it with \`qwen extensions install ${w.dir}\` (Qwen Code converts it), or ` : '';
  return (
    `extension "${w.extension}": ${w.dir} has ${w.found.manifest} but no ${w.manifest}, so its servers are not read – it is a ${w.found.client} extension: ` +
    `${install}put it in ${w.otherDir} and run mcp-live with --profile ${w.found.profile}`
  );
}
