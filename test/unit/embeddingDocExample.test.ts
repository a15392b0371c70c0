import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DIR = join(ROOT, '.tmp-test', `doc-example-${process.pid}`);

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

/** The first ```ts block after `heading` in docs/embedding.md. */
function exampleAfter(heading: string): string {
  const doc = readFileSync(join(ROOT, 'docs/embedding.md'), 'utf8');
  const section = doc.slice(doc.indexOf(heading));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (doc.indexOf(heading) < 0 || !match) throw new Error(`no ts example after "${heading}"`);
  return match[1]!;
}

/** Type errors of `code` as a module of this package, `mcp-live` and `mcp-live/pipeline` being its own sources. */
function typeErrors(code: string): string[] {
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, 'example.ts');
  writeFileSync(file, code);
  const tsconfig: unknown = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path)).config;
  const { options } = ts.parseJsonConfigFileContent(tsconfig, ts.sys, ROOT);
  const program = ts.createProgram([file], { ...options, noEmit: true, paths: { 'mcp-live': [join(ROOT, 'src/index.ts')], 'mcp-live/pipeline': [join(ROOT, 'src/pipeline.ts')] } });
  const source = program.getSourceFile(file)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}

describe('docs/embedding.md', () => {
  it('the extra-source example imports what it uses and type-checks', () => {
    const example = exampleAfter('## Composing a new settings source');
    expect(example).toContain('extraSources');
    expect(typeErrors(example)).toEqual([]);
  }, 60_000);
});

describe('docs/embedding.md, What the package exports', () => {
  it('the pipeline example imports from mcp-live/pipeline and type-checks', () => {
    const example = exampleAfter('## What the package exports');
    expect(example).toContain("from 'mcp-live/pipeline'");
    expect(typeErrors(example)).toEqual([]);
  }, 60_000);

  it('names every value of both entry points', async () => {
    const doc = readFileSync(join(ROOT, 'docs/embedding.md'), 'utf8');
    const start = doc.indexOf('## What the package exports');
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
    const root = Object.keys(await import('../../src/index.js'));
    const pipeline = Object.keys(await import('../../src/pipeline.js'));
    // The model's constants are named as a set ("every type and constant of the model"), by example.
    const constants = /^[A-Z][A-Z0-9_]+$/;
    expect([...root, ...pipeline.filter((name) => !constants.test(name))].filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
    // The building blocks are the subpath's, not the root's.
    expect(root.filter((name) => pipeline.includes(name))).toEqual([]);
    expect(pipeline).toEqual(expect.arrayContaining(['createReconciler', 'exhaustMapWithTrailing', 'assemble', 'admit', 'plan', 'fingerprint', 'GATED_SCOPES']));
  });
});

describe('docs/embedding.md, Options', () => {
  it('lists every option of createMcpLive, with its default', () => {
    const doc = readFileSync(join(ROOT, 'docs/embedding.md'), 'utf8');
    const start = doc.indexOf('## Options');
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
    const listed = new Set(
      [...section.matchAll(/^\| ([^|]+) \| ([^|]+) \|/gm)].filter((m) => m[2]!.trim() !== '').flatMap((m) => [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!)),
    );
    // Every member of the type, its own and those it takes from SettingsLocations and the
    // pipeline's options (decision 348), as the compiler resolves them.
    const file = join(ROOT, 'src/live/types.ts');
    const program = ts.createProgram([file], { noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true });
    const source = program.getSourceFile(file)!;
    const node = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'McpLiveOptions')!;
    const checker = program.getTypeChecker();
    const names = checker.getPropertiesOfType(checker.getTypeAtLocation(node.name)).map((p) => p.getName());
    expect(names).toEqual(expect.arrayContaining(['cwd', 'homeDir', 'pinsFile', 'interactiveAuth', 'debounceMs', 'hints']));
    expect(names.filter((name) => !listed.has(name))).toEqual([]);
  });
});
