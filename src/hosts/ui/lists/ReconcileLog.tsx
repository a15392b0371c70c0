import { Text } from '../kit/Text.js';
import { useMemo } from 'react';
import { scan, type Observable } from 'rxjs';
import type { McpLiveEvent } from '../../../model/report/events.js';
import { formatLogLine, nextLogLines, type LogLine } from '../text/eventLogLine.js';
import { ScrollView } from '../kit/ScrollView.js';
import { useThrottledObservable } from '../kit/useObservable.js';

export interface ReconcileLogProps {
  /** `McpLive.events$` (hot): the log starts with the events after mount. Stable identity. */
  events$: Observable<McpLiveEvent>;
  /** Lines kept (default 8). */
  max?: number;
}

/**
 * The live log: one line per reconcile pass (`HH:MM:SS  +c ~b -d  kept 5  312 ms  (watch)`),
 * settings errors in red (until their file reads cleanly again: `settings-ok`), restart-required
 * and warnings in yellow, approval requests — the last `max` lines. Lines accumulate in the stream (`scan`), and the screen follows at most once a
 * frame, so a storm of events costs one render per frame.
 */
export function ReconcileLog({ events$, max = 8 }: ReconcileLogProps) {
  const lines$ = useMemo(
    () =>
      events$.pipe(
        scan((lines: readonly LogLine[], e: McpLiveEvent, index: number) => nextLogLines(lines, e, index, max), []),
      ),
    [events$, max],
  );
  const lines = useThrottledObservable(lines$, NO_LINES);
  if (lines.length === 0) return null;
  // Squeezed by a full screen, it keeps its newest lines.
  return (
    <ScrollView stickToBottom hint={false}>
      {lines.map((line) => (
        // A pass naming fifty servers is cut at the edge; an error wraps, it must be read whole.
        <Text key={line.id} color={line.color} wrap={line.color === undefined ? 'truncate-end' : 'wrap'}>
          {formatLogLine(line)}
        </Text>
      ))}
    </ScrollView>
  );
}

const NO_LINES: readonly LogLine[] = [];
