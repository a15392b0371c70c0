import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layout of src/ as docs/architecture.md draws it (decision 336), held against the code:
 * every import points to its own floor or below, a host sees the face only through its types
 * file, no module imports another in a circle, no file grows past 800 lines, and the model's
 * root holds at most 20 files of shared code that import no subfolder of the model.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(repo, 'src');

/** The floors, top first: a file may import its own floor or a lower one. */
const FLOORS: readonly (readonly string[])[] = [
  ['cli'],
  ['hosts', 'index.ts', 'pipeline.ts'],
  ['live'],
  ['sinks'],
  ['streams', 'process'],
  ['operators', 'files'],
  ['platform'],
  ['model'],
];

function floorOf(file: string): number {
  const room = file.split('/')[0]!;
  const floor = FLOORS.findIndex((rooms) => rooms.includes(room));
  if (floor < 0) throw new Error(`src/${file} is in no floor of the house; add its room to FLOORS and to docs/architecture.md`);
  return floor;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [relative(src, path).split('\\').join('/')] : [];
  });
}

const files = sourceFiles(src);
const known = new Set(files);

/** The files of src/ that `file` imports (static imports, re-exports and `import()` with a literal). */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)) {
    const spec = posix.normalize(posix.join(posix.dirname(file), match[2]!));
    const target = [spec, spec.replace(/\.js$/, '.ts'), spec.replace(/\.js$/, '.tsx')].find((candidate) => known.has(candidate));
    if (target === undefined) throw new Error(`src/${file} imports ${match[2]}, which is no file of src/`);
    found.push(target);
  }
  return found;
}

const texts = new Map(files.map((file) => [file, readFileSync(join(src, file), 'utf8')]));
const graph = new Map(files.map((file) => [file, importsOf(file, texts.get(file)!)]));

/** Tarjan's strongly connected components of more than one file (or a file importing itself). */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe('the house of src/', () => {
  it('reads a real tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect([...graph.values()].flat().length).toBeGreaterThan(300);
  });

  it('has every import pointing to its own floor or below', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => floorOf(target) < floorOf(file)).map((target) => `src/${file} → src/${target}`),
    );
    expect(upward).toEqual([]);
  });

  it("has the hosts import the face by its types only, never the session's wiring", () => {
    const inside = [...graph]
      .filter(([file]) => file.startsWith('hosts/'))
      .flatMap(([file, targets]) => targets.filter((t) => t.startsWith('live/') && t !== 'live/types.ts').map((t) => `src/${file} → src/${t}`));
    expect(inside).toEqual([]);
  });

  it('has no circle of imports', () => {
    expect(circles()).toEqual([]);
  });

  it('has no folder of the model importing another in a circle, and shared code at its root importing no folder', () => {
    const folderOf = (file: string) => file.split('/').slice(0, -1).join('/');
    const model = files.filter((file) => file.startsWith('model/'));
    const rootUp = model
      .filter((file) => folderOf(file) === 'model')
      .flatMap((file) => graph.get(file)!.filter((target) => folderOf(target) !== 'model').map((target) => `src/${file} → src/${target}`));
    expect(rootUp).toEqual([]);
    const arrows = new Set(model.flatMap((file) => graph.get(file)!.map((target) => `${folderOf(file)}>${folderOf(target)}`)));
    const loops = [...arrows].filter((arrow) => {
      const [from, to] = arrow.split('>');
      return from !== to && arrows.has(`${to}>${from}`);
    });
    expect(loops).toEqual([]);
    expect(model.filter((file) => folderOf(file) === 'model').length).toBeLessThanOrEqual(20);
  });

  it('has no file over 800 lines', () => {
    const long = files.filter((file) => texts.get(file)!.split('\n').length > 800);
    expect(long).toEqual([]);
  });

  it('can fail: a room on no floor is refused, a lower floor ranks below, a circle is found', () => {
    // The rules above judge what this file reads; this proves they can fail.
    expect(floorOf('model/types.ts')).toBeGreaterThan(floorOf('live/x.ts'));
    expect(() => floorOf('nowhere/x.ts')).toThrow(/no floor/);
    graph.set('model/__a.ts', ['model/__b.ts']);
    graph.set('model/__b.ts', ['model/__a.ts']);
    files.push('model/__a.ts', 'model/__b.ts');
    try {
      expect(circles()).toContainEqual(['model/__a.ts', 'model/__b.ts']);
    } finally {
      files.splice(-2);
      graph.delete('model/__a.ts');
      graph.delete('model/__b.ts');
    }
  });
});
