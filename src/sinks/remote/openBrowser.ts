import open from 'open';
import { openableAuthorizationUrl } from '../../model/oauth/oauthUrlPolicy.js';

/**
 * Opens `url` in the user's default browser (`/mcp auth NAME`, decision 90), through the `open`
 * package (xdg-open, `open`, `start` as the system has them). Resolves once the opener started;
 * rejects when none could be, and the caller then shows the URL to copy instead. Only a web URL
 * is handed to the system's opener (decision 189): `file:`, `javascript:` or a custom scheme
 * would run whatever handler the desktop has for it.
 */
export async function openInBrowser(url: string, opener: (target: string) => Promise<unknown> = (target) => open(target, { wait: false })): Promise<void> {
  openableAuthorizationUrl(url);
  await opener(url);
}
