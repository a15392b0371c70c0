import { Text } from './Text.js';
import { useEffect, useState } from 'react';

export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

/** A tiny spinner: one frame every `intervalMs`; the timer stops when it unmounts. */
export function Spinner({ color = 'yellow', intervalMs = 100 }: { color?: string; intervalMs?: number }) {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setFrame((f) => (f + 1) % SPINNER_FRAMES.length), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return <Text color={color}>{SPINNER_FRAMES[frame]}</Text>;
}
