/** Median, min and max of a set of samples: how every latency is reported. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  /** Samples that produced a number (failed repetitions are left out and counted in `failed`). */
  n: number;
  failed?: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Summary of the samples, rounded to `digits` decimals; `undefined` samples are failed repetitions. */
export function summarize(samples: readonly (number | undefined)[], digits = 1): Summary {
  const values = samples.filter((v): v is number => v !== undefined && Number.isFinite(v));
  const failed = samples.length - values.length;
  const summary: Summary = {
    median: round(median(values), digits),
    min: round(values.length ? Math.min(...values) : Number.NaN, digits),
    max: round(values.length ? Math.max(...values) : Number.NaN, digits),
    n: values.length,
  };
  if (failed > 0) summary.failed = failed;
  return summary;
}

/** One decimal is plenty for milliseconds measured on a shared machine. */
export function round(value: number, digits = 1): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
