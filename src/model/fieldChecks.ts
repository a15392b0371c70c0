/**
 * Type checks of the known fields of a settings object, with the words of their errors: one
 * mechanism for a server entry (validate.ts) and the blocks inside it (its `oauth` block).
 */

export type FieldCheck = (value: unknown) => boolean;

/** A known field: its name, its check, and what it must be ("a non-empty string"). */
export type FieldRule = readonly [field: string, check: FieldCheck, expected: string];

export const isString: FieldCheck = (value) => typeof value === 'string';
export const isNonEmptyString: FieldCheck = (value) => typeof value === 'string' && value !== '';
export const isBoolean: FieldCheck = (value) => typeof value === 'boolean';
export const isStringArray: FieldCheck = (value) => Array.isArray(value) && value.every((item) => typeof item === 'string');
export const isStringRecord: FieldCheck = (value) => isPlainObject(value) && Object.values(value).every((item) => typeof item === 'string');
export const isPositiveNumber: FieldCheck = (value) => typeof value === 'number' && Number.isFinite(value) && value > 0;
export const isPositiveWholeNumber: FieldCheck = (value) => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * An object written as `{...}` in JSON: not null, not an array. Prototypes are not inspected, so
 * `JSON.parse` output and null-prototype maps both qualify.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * What is wrong with the known fields of `object`, one phrase each ("timeout must be a positive
 * number (milliseconds)"), names prefixed with `prefix` ("oauth." for a block). Own fields only:
 * an entry must not pick up `toString` & co. from its prototype; absent or `undefined` is fine.
 */
export function fieldProblems(object: Record<string, unknown>, rules: readonly FieldRule[], prefix = ''): string[] {
  return rules.flatMap(([field, check, expected]) => {
    const value = Object.hasOwn(object, field) ? object[field] : undefined;
    return value === undefined || check(value) ? [] : [`${prefix}${field} must be ${expected}`];
  });
}
