import type { ElicitationAnswer, ElicitationField, ElicitationForm, ElicitationSchema } from './connection.js';
import { terminalSafe } from './terminalText.js';

/**
 * Pure helpers for the forms of `elicitation/create` (form mode): what a form starts with and
 * whether an answer is complete. The wire format is the MCP's: a flat object schema whose fields
 * are strings, numbers, integers, booleans, or enums of strings (one or several).
 */

export type FieldValue = string | number | boolean | string[];

/** The fields of a form in the order the server wrote them, each with whether it is required. */
export function formFields(schema: ElicitationSchema): { key: string; field: ElicitationField; required: boolean }[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([key, field]) => ({ key, field, required: required.has(key) }));
}

/** The values a form starts with: each field's `default`, where it has one of the field's kind. */
export function formDefaults(schema: ElicitationSchema): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const { key, field } of formFields(schema)) {
    if (isFieldValue(field.default)) values[key] = field.default;
  }
  return values;
}

/** The required fields an accepted answer leaves without a value, once defaults are applied. */
export function missingRequired(schema: ElicitationSchema, content: Record<string, unknown>): string[] {
  const filled = { ...formDefaults(schema), ...content };
  return formFields(schema)
    .filter(({ key, required }) => required && (filled[key] === undefined || filled[key] === ''))
    .map(({ key }) => key);
}

/**
 * An answer as a host or a command gave it, checked: the action is one of the three, and the
 * content (of an `accept` only) is an object of field values. Throws a message naming the problem.
 */
export function checkAnswer(answer: unknown): ElicitationAnswer {
  if (typeof answer !== 'object' || answer === null) throw new Error('an answer is {"action": "accept" | "decline" | "cancel", "content"?: {…}}');
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    throw new Error(`"action" must be "accept", "decline" or "cancel" (got ${JSON.stringify(action)})`);
  }
  if (action !== 'accept' || content === undefined) return { action };
  if (typeof content !== 'object' || content === null || Array.isArray(content)) throw new Error('"content" must be a JSON object of field values');
  for (const [key, value] of Object.entries(content)) {
    if (!isFieldValue(value)) throw new Error(`field "${key}" must be a string, a number, a boolean or a list of strings`);
  }
  return { action, content: content as Record<string, FieldValue> };
}

/**
 * Reads what a user typed into a field as the field's kind: a number for `number`/`integer`,
 * true/false for `boolean`, a list (comma-separated) for an array, else the text. Returns an
 * error message instead when the text is not of that kind.
 */
export function parseFieldText(field: ElicitationField, text: string): FieldValue | { error: string } {
  const trimmed = text.trim();
  switch (field.type) {
    case 'number':
    case 'integer': {
      const n = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(n)) return { error: 'a number' };
      if (field.type === 'integer' && !Number.isInteger(n)) return { error: 'a whole number' };
      return n;
    }
    case 'boolean':
      if (/^(true|yes|y)$/i.test(trimmed)) return true;
      if (/^(false|no|n)$/i.test(trimmed)) return false;
      return { error: 'true or false' };
    case 'array':
      return trimmed === '' ? [] : trimmed.split(',').map((s) => s.trim());
    default:
      return text;
  }
}

/** A field value as the user edits it: the text {@link parseFieldText} reads back. */
export function fieldText(value: FieldValue | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

function isFieldValue(value: unknown): value is FieldValue {
  return (
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    typeof value === 'boolean' ||
    (Array.isArray(value) && value.every((v) => typeof v === 'string'))
  );
}

/**
 * A server's form as the gateway hands it to its client (decision 169): the message says which
 * server asks (`[server] …`) — the client shows it to a person who cannot otherwise tell one
 * backend from another — and the message and each field's title and description are
 * terminal-safe, as mcp-live's own dialog shows them: the client may well print them raw.
 */
export function formForClient(server: string, form: ElicitationForm): ElicitationForm {
  const properties: Record<string, ElicitationField> = {};
  for (const { key, field } of formFields(form.requestedSchema)) {
    const safe: ElicitationField = { ...field };
    if (typeof field.title === 'string') safe.title = terminalSafe(field.title);
    if (typeof field.description === 'string') safe.description = terminalSafe(field.description, { multiline: true });
    Object.defineProperty(properties, key, { value: safe, enumerable: true, writable: true, configurable: true });
  }
  return {
    message: `[${terminalSafe(server)}] ${terminalSafe(form.message, { multiline: true })}`,
    requestedSchema: { ...form.requestedSchema, properties },
  };
}
