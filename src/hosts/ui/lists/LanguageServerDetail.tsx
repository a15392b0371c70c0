import { Text } from '../kit/Text.js';
import { reviewEntry } from '../../../model/admission/reviewEntry.js';
import { terminalSafe } from '../../../model/terminalText.js';
import type { Scope } from '../../../model/types.js';
import { ConfigSection, DetailFrame, Field, HistorySection, Section, StatusFields, StderrSection, type ServerDetailProps } from './ServerDetail.js';

/**
 * `/lsp NAME` (decision 157): a language server in detail, from the pieces of the MCP detail view —
 * where it comes from and how it stands, its command line (as the approval review shows it:
 * literal secrets masked, `${VAR}` references kept), the languages it gets, what it said it can
 * do in `initialize`, the masked entry, its stderr tail and its history. It has no tools, prompts
 * or resources of its own: the `lsp__*` tools use every connected language server.
 */
export function LanguageServerDetail({ server: s, stderr, config, stderrLines = 12, historyLines = 10, isActive = true }: ServerDetailProps) {
  const capabilities = s.capabilities ?? [];
  return (
    <DetailFrame server={s} isActive={isActive}>
      <StatusFields server={s} />
      <Field label="command">{terminalSafe(commandLine(config, s.scope) ?? '—')}</Field>
      <Field label="languages">{s.languages !== undefined && s.languages.length > 0 ? s.languages.join(', ') : '—'}</Field>

      <Section title={`Capabilities (${capabilities.length})`}>
        {capabilities.length === 0 ? (
          <Text color="gray">{s.state === 'connected' ? 'none announced' : 'known once it is connected'}</Text>
        ) : (
          <Text wrap="wrap">{capabilities.join(', ')}</Text>
        )}
      </Section>

      <ConfigSection config={config} scope={s.scope} />
      {/* A language server always has a process of ours (a socket one too, when it has a command). */}
      {stderr !== undefined && <StderrSection stderr={stderr} lines={stderrLines} />}
      <HistorySection server={s} lines={historyLines} />
    </DetailFrame>
  );
}

/** The entry's `command args…` as the approval review words it, or undefined when it has none (a socket server already running). */
function commandLine(config: unknown, scope: Scope): string | undefined {
  if (config === undefined) return undefined;
  return reviewEntry(config, 'lsp', scope).lines.find((line) => line.label === 'command')?.value;
}
