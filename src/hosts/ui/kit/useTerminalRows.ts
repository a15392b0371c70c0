import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/**
 * The terminal's height in rows, or undefined where the output is no terminal (a pipe, a test).
 * Follows resizes: Ink redraws on `resize` but does not render components again, so a view that
 * sizes itself by the height must listen itself.
 */
export function useTerminalRows(): number | undefined {
  const { stdout } = useStdout();
  const [rows, setRows] = useState<number | undefined>(() => stdout.rows);
  useEffect(() => {
    const onResize = () => setRows(stdout.rows);
    stdout.on('resize', onResize);
    onResize(); // a resize between the first render and this effect
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return rows;
}
