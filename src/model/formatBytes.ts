/** "2 MiB", "1.5 MiB", "512 KiB", "100 bytes": a size for a message. */
export function formatBytes(bytes: number): string {
  const round = (n: number): string => String(Math.round(n * 10) / 10);
  if (bytes >= 1024 * 1024) return `${round(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
