/** `HH:MM:SS` in local time: how the log and the history show an epoch-ms timestamp. */
export function formatClock(ts: number): string {
  const d = new Date(ts);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
