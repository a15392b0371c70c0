import { Box } from 'ink';
import { Text } from '../kit/Text.js';
import type { ReactNode } from 'react';
import { formatDuration, plural } from '../../../model/report/messages.js';
import { entryForReview } from '../../../model/settings/secrets.js';
import type { SurfaceChange } from '../../../model/tools/surfaceTypes.js';
import { GATED_SCOPES, type Scope } from '../../../model/types.js';
import type { ServerStatus } from '../../../model/report/status.js';
import { terminalSafe } from '../../../model/terminalText.js';
import { formatClock } from '../text/formatClock.js';
import { KEY_PRIORITY } from '../kit/keys.js';
import { ScrollView } from '../kit/ScrollView.js';
import { displayName, stateIcon, statusText } from '../text/serverSummary.js';
import { SurfaceDiff, withheldWhy } from '../text/SurfaceDiff.js';
import { WindowedRows } from '../kit/WindowedRows.js';

export interface ServerDetailProps {
  server: ServerStatus;
  /** The server's last stderr lines (already redacted by the ring buffer), oldest first. */
  stderr?: readonly string[];
  /**
   * The entry as written; shown through {@link entryForReview}: what affects what runs stays
   * visible (`NODE_OPTIONS`, `${VAR}` references); a user-scope entry's literal secrets never
   * show, a repository's entry shows as written (decision 166).
   */
  config?: unknown;
  /** How many stderr lines to show (default 12). */
  stderrLines?: number;
  /** How many history lines to show (default 10). */
  historyLines?: number;
  /** Whether ↑↓ PgUp/PgDn Home/End scroll it (when it is taller than its share of the screen). */
  isActive?: boolean;
  /**
   * The differences of the server's changed tools from what the user approved, while they wait
   * for a decision (the `surface` of its pending approval, decision 197): shown with its withheld tools.
   */
  surface?: readonly SurfaceChange[];
}

/** Fingerprint characters shown: enough to tell two configs apart at a glance. */
const FINGERPRINT_CHARS = 12;

/**
 * `/mcp NAME`: how the server is reached (scope, source file, transport, fingerprint prefix,
 * masked config), what it says it is (name, version, instructions), what it offers (tools with
 * descriptions, prompts, resources and templates with their URIs), why it is not connected or
 * has no process (idle), the tools withheld since their definition changed and what changed,
 * and what happened to it (stderr tail of a stdio server, recent history with HH:MM:SS times).
 * Below its name it scrolls (↑↓ a line, PgUp/PgDn a page, Home/End) when the screen is too short.
 */
export function ServerDetail({ server: s, stderr, config, stderrLines = 12, historyLines = 10, isActive = true, surface }: ServerDetailProps) {
  const withheld = s.withheld ?? [];
  // A remote server has no stderr; a stdio one that never ran (blocked) has none to show either.
  const showStderr = stderr !== undefined && (s.transport === 'stdio' || stderr.length > 0);
  return (
    <DetailFrame server={s} isActive={isActive}>
      <StatusFields server={s} />

      {s.instructions !== undefined && (
        <Section title="Instructions">
          <Text wrap="wrap">{s.instructions}</Text>
        </Section>
      )}

      <ConfigSection config={config} scope={s.scope} />

      <Section title={`Tools (${s.tools.length}${withheld.length > 0 ? `, ${withheld.length} withheld` : ''})`}>
        {s.tools.length === 0 && withheld.length === 0 && <Text color="gray">none</Text>}
        {/* A window of them when there are many (decision 192): 100,000 tools cost what is in view. */}
        <WindowedRows
          items={s.tools}
          row={(t) => (
            <Text key={t.name}>
              <Text color="cyan">{t.tool}</Text>
              <Text color="gray"> {t.name}</Text>
              {t.description ? ` — ${firstLine(t.description)}` : ''}
            </Text>
          )}
        />
      </Section>

      {withheld.length > 0 && <WithheldTools server={s} withheld={withheld} surface={surface} />}

      <Section title={`Prompts (${s.prompts.length})`}>
        {s.prompts.length === 0 && <Text color="gray">none</Text>}
        <WindowedRows
          items={s.prompts}
          row={(p) => (
            <Text key={p.name}>
              <Text color="cyan">{p.name}</Text>
              {p.description ? ` — ${firstLine(p.description)}` : ''}
            </Text>
          )}
        />
      </Section>

      {(s.resources.length > 0 || s.resourceTemplates !== undefined) && (
        <Section title={`Resources (${s.resources.length})`}>
          <WindowedRows
            items={s.resources}
            row={(r) => (
              <Text key={r.uri}>
                <Text color="cyan">{r.uri}</Text>
                {r.name !== undefined && r.name !== r.uri ? <Text color="gray"> {r.name}</Text> : ''}
                {r.description ? ` — ${firstLine(r.description)}` : ''}
              </Text>
            )}
          />
          {(s.resourceTemplates ?? []).map((t) => (
            <Text key={t.uriTemplate}>
              <Text color="cyan">{t.uriTemplate}</Text>
              <Text color="gray"> template{t.name !== undefined ? ` ${t.name}` : ''}</Text>
              {t.description ? ` — ${firstLine(t.description)}` : ''}
            </Text>
          ))}
          <Text color="gray">/read URI shows one</Text>
        </Section>
      )}

      {showStderr && <StderrSection stderr={stderr} lines={stderrLines} />}
      <HistorySection server={s} lines={historyLines} />
    </DetailFrame>
  );
}

/**
 * The frame of a server's detail view, whatever its kind: the icon, name, state and pid stay on
 * top; `children` scroll below (↑↓ a line, PgUp/PgDn a page, Home/End) when the screen is too short.
 */
export function DetailFrame({ server: s, isActive, children }: { server: ServerStatus; isActive: boolean; children: ReactNode }) {
  const { icon, color } = stateIcon(s);
  return (
    <Box flexDirection="column">
      <Box flexShrink={0}>
        <Text>
          <Text color={color}>{icon}</Text> <Text bold>{terminalSafe(displayName(s))}</Text> <Text color={color}>{s.state}</Text>
          {s.pid !== undefined && <Text color="gray"> (pid {s.pid})</Text>}
        </Text>
      </Box>
      <ScrollView keys={{ priority: KEY_PRIORITY.view, isActive }} resetKey={s.name} hint="↑↓ PgUp/PgDn scroll">
        {children}
      </ScrollView>
    </Box>
  );
}

/**
 * Where a server comes from and how it stands: scope, source file, transport, fingerprint prefix,
 * what it says it is, why it is not connected, and its warnings.
 */
export function StatusFields({ server: s }: { server: ServerStatus }) {
  const why = statusText(s);
  return (
    <>
      <Field label="scope">{s.scope}</Field>
      <Field label="source">{s.source || '—'}</Field>
      <Field label="transport">{s.transport ?? '—'}</Field>
      <Field label="fingerprint">{s.fingerprint ? `${s.fingerprint.slice(0, FINGERPRINT_CHARS)}…` : '—'}</Field>
      {s.serverInfo !== undefined && (
        <Field label="server">
          {s.serverInfo.title ?? s.serverInfo.name} {s.serverInfo.version}
        </Field>
      )}
      {s.protocolVersion !== undefined && (
        // Which revision it speaks (decision 380): 2026-07-28 and later have no initialize.
        <Field label="protocol">
          {s.protocolVersion}
          {s.era !== undefined && <Text color="gray">{` (${s.era === 'modern' ? 'modern' : '2025 era'})`}</Text>}
        </Field>
      )}
      {s.state === 'idle' ? (
        // Not a problem (decision 196): no process now, its tools listed; a request starts it.
        <Field label="idle">
          {why}
          <Text color="gray">{` · /reconnect ${terminalSafe(s.name)} starts it now`}</Text>
        </Field>
      ) : (
        why !== undefined && (
          <Field label={s.state === 'error' ? 'error' : 'reason'}>
            <Text color={s.state === 'error' ? 'red' : 'yellow'}>{why}</Text>
          </Field>
        )
      )}
      {s.state !== 'idle' && s.idleTimeoutMs !== undefined && (
        <Field label="idle timeout">{`stops after ${formatDuration(s.idleTimeoutMs)} without a request`}</Field>
      )}
      {s.warnings !== undefined && s.warnings.length > 0 && (
        <Field label="warnings">
          <Text color="yellow">{s.warnings.join('; ')}</Text>
        </Field>
      )}
    </>
  );
}

/**
 * The tools a server lists but the agent does not get (decision 197), one row each with what
 * changed about it, how to approve them, and — while the change waits for a decision — the
 * differences themselves, so the detail view is where a put-off approval is reviewed.
 */
function WithheldTools({ server: s, withheld, surface }: { server: ServerStatus; withheld: readonly string[]; surface?: readonly SurfaceChange[] }) {
  const name = terminalSafe(s.name);
  return (
    <>
      <Box flexDirection="column" paddingLeft={2}>
        <WindowedRows
          items={withheld}
          row={(tool) => (
            <Text key={tool}>
              <Text color="yellow">⊘ </Text>
              <Text color="cyan">{terminalSafe(tool)}</Text>
              <Text color="yellow">{` withheld — ${withheldWhy(tool, surface)}`}</Text>
            </Text>
          )}
        />
        <Text color="yellow" wrap="wrap">
          {surface === undefined
            ? `Their definitions changed since you approved ${name}; the agent gets them once you approve: /approve ${name}.`
            : `Their definitions changed since you approved ${name} (below); the agent gets them once you approve: /approve ${name}.`}
        </Text>
      </Box>
      {surface !== undefined && (
        <Section title={`Changed since you approved it (${plural(surface.length, 'change')})`}>
          <SurfaceDiff changes={surface} />
        </Section>
      )}
    </>
  );
}

/**
 * The entry as written, through {@link entryForReview}: a repository's (gated scope) literally,
 * another's with its literal secrets masked (decision 166); nothing when there is none.
 */
export function ConfigSection({ config, scope }: { config: unknown; scope?: Scope }) {
  if (config === undefined) return null;
  const gated = scope !== undefined && GATED_SCOPES.has(scope);
  return (
    <Section title={gated ? 'Config (as the repository wrote it)' : 'Config (secrets masked)'}>
      <Text>{JSON.stringify(entryForReview(config, scope), null, 2)}</Text>
    </Section>
  );
}

/** The last `lines` of a server's stderr, and how many there are. */
export function StderrSection({ stderr, lines }: { stderr: readonly string[]; lines: number }) {
  const tail = stderr.slice(-lines);
  return (
    <Section title={`stderr (last ${tail.length} of ${stderr.length} lines)`}>
      {tail.length === 0 && <Text color="gray">empty</Text>}
      {tail.map((line, i) => (
        <Text key={i} color="gray">
          {line}
        </Text>
      ))}
    </Section>
  );
}

/** The last `lines` of a server's history, with HH:MM:SS times. */
export function HistorySection({ server: s, lines }: { server: ServerStatus; lines: number }) {
  const history = s.history.slice(-lines);
  return (
    <Section title="History">
      {history.length === 0 && <Text color="gray">nothing yet</Text>}
      {history.map((h, i) => (
        <Text key={i}>
          <Text color="gray">{formatClock(h.ts)}</Text> {h.state}
          {h.message ? <Text color={h.state === 'error' ? 'red' : 'gray'}> {h.message}</Text> : null}
        </Text>
      ))}
    </Section>
  );
}

export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box>
      <Box width={13} flexShrink={0}>
        <Text color="gray">{label}</Text>
      </Box>
      <Text>{children}</Text>
    </Box>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>{title}</Text>
      <Box flexDirection="column" paddingLeft={2}>
        {children}
      </Box>
    </Box>
  );
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}
