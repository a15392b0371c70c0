import open from 'open';

/**
 * Opens `url` in the user's default browser (issue 12, `/mcp auth NAME`), through the `open`
 * package (xdg-open, `open`, `start` as the system has them). Resolves once the opener started;
 * rejects when none could be, and the caller then shows the URL to copy instead.
 */
export async function openInBrowser(url: string): Promise<void> {
  await open(url, { wait: false });
}
