import { Box, type BoxProps, type DOMElement } from 'ink';
import { useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { useLayoutSync } from './layoutSync.js';

/** A part of the session that can give up rows: its scrolled views scroll instead. */
export type RegionId = 'body' | 'dialog' | 'output' | 'log';

/** One claim on the rows left: `id` gets up to `upTo` rows in all (default: all it needs). */
export interface Claim {
  id: RegionId;
  upTo?: number;
}

/** Rows per region; a region without an entry takes what it needs. */
export type Heights = Partial<Record<RegionId, number>>;

export interface RowBudget {
  heights: Heights;
  regions: Map<RegionId, RefObject<DOMElement | null>>;
}

type YogaNode = NonNullable<DOMElement['yogaNode']>;

/**
 * Shares the rows of a frame (`maxRows`) out among its regions, in the order of `claims`: what
 * is not a region (the header, the command line, a dialog's options) keeps its rows, and each
 * claim takes what its region needs of the rows left; a region scrolls inside what it got.
 *
 * What a region needs is its height with nothing cut, so after each commit the frame is laid
 * out once more without the limits (Yoga, synchronously, nothing drawn), measured, and laid out
 * again as it was. Why not Yoga's `flexShrink`: it shares a shortage out in proportion to size,
 * and with factors far apart (to make one part give way first) Yoga shrinks nothing at all once a
 * part would go below zero rows. A frame drawn before the rows are shared out again (a part that
 * just grew) is cut at the bottom by the frame cap (`useFrameCap`), for that one frame.
 */
export function useRowBudget(rootRef: RefObject<DOMElement | null>, maxRows: number, claims: readonly Claim[]): RowBudget {
  const [heights, setHeights] = useState<Heights>({});
  const heightsRef = useRef(heights);
  const [regions] = useState(() => new Map<RegionId, RefObject<DOMElement | null>>());
  useLayoutSync(
    () => {
      const root = rootRef.current?.yogaNode;
      const layoutRoot = rootRef.current?.parentNode?.yogaNode;
      if (!root || !layoutRoot) return;
      const nodes = [...regions].flatMap(([id, ref]) => (ref.current?.yogaNode ? [[id, ref.current.yogaNode] as const] : []));
      const { total, need } = naturalHeights(layoutRoot, root, nodes);
      const fixed = total - Object.values(need).reduce((sum, n) => sum + n, 0);
      const next = share(need, maxRows - fixed, claims);
      if (!sameHeights(next, heightsRef.current)) {
        heightsRef.current = next;
        setHeights(next);
      }
    },
    { settle: true },
  );
  return { heights, regions };
}

/** The frame's height and each region's with no limit on either, then the layout restored. */
function naturalHeights(
  layoutRoot: YogaNode,
  root: YogaNode,
  regions: readonly (readonly [RegionId, YogaNode])[],
): { total: number; need: Heights } {
  const saved = { max: root.getMaxHeight(), heights: regions.map(([, node]) => node.getHeight()) };
  root.setMaxHeight(undefined);
  for (const [, node] of regions) node.setHeightAuto();
  layoutRoot.calculateLayout(undefined, undefined);
  const total = root.getComputedHeight();
  const need: Heights = Object.fromEntries(regions.map(([id, node]) => [id, node.getComputedHeight()]));
  // An unset limit reads back as NaN (auto and undefined alike).
  root.setMaxHeight(Number.isNaN(saved.max.value) ? undefined : saved.max.value);
  regions.forEach(([, node], i) => {
    const h = saved.heights[i]?.value;
    if (h === undefined || Number.isNaN(h)) node.setHeightAuto();
    else node.setHeight(h);
  });
  layoutRoot.calculateLayout(undefined, undefined);
  return { total, need };
}

/** The claims, served in order from `rows`. */
export function share(need: Heights, rows: number, claims: readonly Claim[]): Heights {
  const got: Heights = {};
  let left = Math.max(0, rows);
  for (const { id, upTo = Infinity } of claims) {
    const wanted = need[id];
    if (wanted === undefined) continue;
    const give = Math.max(0, Math.min(Math.min(wanted, upTo) - (got[id] ?? 0), left));
    got[id] = (got[id] ?? 0) + give;
    left -= give;
  }
  return got;
}

function sameHeights(a: Heights, b: Heights): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<RegionId>;
  return [...keys].every((k) => a[k] === b[k]);
}

/**
 * A region of a {@link RowBudget}: a column box as tall as the budget gives it, clipping what
 * does not fit (its scrolled views scroll instead).
 */
export function Region({ budget, id, children, ...box }: { budget: RowBudget; id: RegionId; children: ReactNode } & BoxProps) {
  const ref = useRef<DOMElement>(null);
  useLayoutEffect(() => {
    budget.regions.set(id, ref);
    return () => {
      budget.regions.delete(id);
    };
  }, [budget.regions, id]);
  return (
    <Box ref={ref} flexDirection="column" overflowY="hidden" height={budget.heights[id]} {...box}>
      {children}
    </Box>
  );
}
