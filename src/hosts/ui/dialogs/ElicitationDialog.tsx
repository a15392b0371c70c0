import { Box, type Key as InkKey } from 'ink';
import { Text } from '../kit/Text.js';
import type { McpLiveElicitation, PendingElicitation } from '../../../live/types.js';
import type { ElicitationField } from '../../../model/connection.js';
import { fieldText, formDefaults, formFields, parseFieldText, type FieldValue } from '../../../model/elicitationForm.js';
import { KEY_PRIORITY, useKeys, useSyncState } from '../kit/keys.js';
import { OptionList, type Option } from '../kit/OptionList.js';
import { terminalSafe } from '../../../model/terminalText.js';

export interface ElicitationDialogProps {
  /** The forms waiting; the dialog shows the first one. Renders nothing when empty. */
  forms: readonly PendingElicitation[];
  actions: Pick<McpLiveElicitation, 'answer'>;
  isActive?: boolean;
}

type Action = 'accept' | 'decline' | 'cancel';

const ACTIONS: readonly Option<Action>[] = [
  { value: 'accept', label: 'Accept', letter: '' },
  { value: 'decline', label: 'Decline', letter: '' },
  { value: 'cancel', label: 'Cancel', letter: '' },
];

/** What the user typed into each field of one form, and where the highlight is (fields, then the actions). */
interface FormState {
  id: string;
  texts: Record<string, string>;
  row: number;
}

/**
 * A server's form (`elicitation/create`): its message, then each field with its title or name,
 * a `*` when required, its value (the default to start with) and what it takes. Modal while it
 * shows: a call waits for the answer, and the server's `timeout` runs.
 *
 * Keys: ↑/↓ move through the fields and then the three actions; typing edits the highlighted
 * field (Backspace deletes); ←/→ step through an enum's choices or flip a boolean; Enter on a
 * field goes to the next row, on an action chooses it; Esc cancels. Accept sends the values
 * read as each field's kind; a field left empty is left out (its default applies). A value of
 * the wrong kind, or a required field left empty, is shown in red and nothing is sent.
 */
export function ElicitationDialog({ forms, actions, isActive = true }: ElicitationDialogProps) {
  const form = forms[0];
  // Read through the ref (`current`): two keys in one chunk must see each other's edits.
  const [, setState, stateRef] = useSyncState<FormState | undefined>(undefined);
  const [problem, setProblem] = useSyncState<string | undefined>(undefined);
  const fields = form ? formFields(form.requestedSchema) : [];
  // Another form (the first one answered or gone): start from its defaults, at its top.
  const current = (): FormState | undefined => {
    if (!form) return undefined;
    if (stateRef.current?.id === form.id) return stateRef.current;
    const defaults = formDefaults(form.requestedSchema);
    return { id: form.id, texts: Object.fromEntries(fields.map(({ key }) => [key, fieldText(defaults[key])])), row: 0 };
  };
  const shown = current();

  const answer = (action: Action, s: FormState) => {
    if (!form) return;
    try {
      if (action !== 'accept') actions.answer(form.id, { action });
      else actions.answer(form.id, { action, content: contentOf(s.texts, fields) });
      setProblem(undefined);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  const onKey = (input: string, key: InkKey) => {
    const s = current();
    if (!s) return;
    const rows = fields.length + ACTIONS.length;
    const onField = s.row < fields.length ? fields[s.row] : undefined;
    const update = (patch: Partial<FormState>) => setState({ ...s, ...patch });
    if (key.escape) return answer('cancel', s);
    if (key.upArrow) return update({ row: (s.row - 1 + rows) % rows });
    if (key.downArrow || key.tab) return update({ row: (s.row + 1) % rows });
    if (key.return) {
      if (onField) return update({ row: s.row + 1 });
      return answer(ACTIONS[s.row - fields.length]!.value, s);
    }
    if (!onField) return;
    const text = s.texts[onField.key] ?? '';
    if (key.leftArrow || key.rightArrow) {
      const next = stepChoice(onField.field, text, key.rightArrow ? 1 : -1);
      if (next !== undefined) update({ texts: { ...s.texts, [onField.key]: next } });
      return;
    }
    if (key.backspace || key.delete) return update({ texts: { ...s.texts, [onField.key]: text.slice(0, -1) } });
    if (input !== '' && !key.ctrl && !key.meta) update({ texts: { ...s.texts, [onField.key]: text + input } });
  };

  useKeys(
    (input, key) => {
      onKey(input, key);
      return true;
    },
    { priority: KEY_PRIORITY.dialog, isActive: isActive && form !== undefined },
  );

  if (!form || !shown) return null;
  // A field's title is the server's: one line, escaped (decision 164), measured as it shows.
  const titleOf = (key: string, field: ElicitationField) => terminalSafe(field.title ?? key);
  const width = Math.min(24, Math.max(...fields.map(({ key, field }) => titleOf(key, field).length + 2), 8));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text>
        <Text bold color="cyan">
          MCP server “{terminalSafe(form.server)}” asks
        </Text>
        {forms.length > 1 && <Text color="gray">{`  (1 of ${forms.length})`}</Text>}
      </Text>
      <Text wrap="wrap">{form.message}</Text>
      <Box flexDirection="column" marginTop={1}>
        {fields.map(({ key, field, required }, i) => {
          const on = shown.row === i;
          return (
            <Box key={key}>
              <Box width={2} flexShrink={0}>
                <Text color="cyan">{on ? '›' : ' '}</Text>
              </Box>
              <Box width={width} flexShrink={0}>
                <Text bold={on}>
                  {titleOf(key, field)}
                  {required ? '*' : ''}
                </Text>
              </Box>
              <Text wrap="wrap">
                <Text color={on ? 'cyan' : undefined}>{shown.texts[key] ?? ''}</Text>
                {on && <Text color="cyan">▏</Text>}
                <Text color="gray">{`  ${describeField(field)}`}</Text>
              </Text>
            </Box>
          );
        })}
      </Box>
      <Box marginTop={1}>
        <OptionList options={ACTIONS} highlighted={shown.row - fields.length} />
      </Box>
      {problem !== undefined && <Text color="red">✖ {problem}</Text>}
      <Text color="gray">↑↓ move · type to edit · ←→ choices · Enter next/choose · Esc cancel</Text>
    </Box>
  );
}

/** What a field takes, in a few words: its kind or choices, and its description. */
function describeField(field: ElicitationField): string {
  const choices = choicesOf(field) ?? choicesOf(field.items as ElicitationField | undefined);
  const kind = choices ? `one of ${choices.join(', ')}` : field.type === 'boolean' ? 'true/false' : (field.type ?? '');
  const what = field.type === 'array' ? `${kind} (comma-separated)` : kind;
  return [what, field.description].filter(Boolean).join(' · ');
}

/** The values an enum field allows (`enum`, or the `const`s of `oneOf` / `anyOf`). */
function choicesOf(field: ElicitationField | undefined): string[] | undefined {
  if (!field) return undefined;
  if (Array.isArray(field.enum)) return field.enum.map(String);
  const alternatives = (field.oneOf ?? field.anyOf) as { const?: unknown }[] | undefined;
  return Array.isArray(alternatives) ? alternatives.map((a) => String(a.const)) : undefined;
}

/** ←/→ on a field: the next or previous choice of an enum, or the other boolean. */
function stepChoice(field: ElicitationField, text: string, step: 1 | -1): string | undefined {
  const choices = field.type === 'boolean' ? ['true', 'false'] : choicesOf(field);
  if (!choices || choices.length === 0) return undefined;
  const at = choices.indexOf(text);
  return choices[at === -1 ? 0 : (at + step + choices.length) % choices.length];
}

/** The typed values read as their fields' kinds; throws naming the first that is not. Empty fields are left out. */
function contentOf(texts: Record<string, string>, fields: ReturnType<typeof formFields>): Record<string, FieldValue> {
  const content: Record<string, FieldValue> = {};
  for (const { key, field } of fields) {
    const text = texts[key] ?? '';
    if (text.trim() === '') continue;
    const value = parseFieldText(field, text);
    if (typeof value === 'object' && !Array.isArray(value)) throw new Error(`${field.title ?? key}: expected ${value.error}`);
    content[key] = value;
  }
  return content;
}
