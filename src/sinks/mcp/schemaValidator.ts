import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';

/**
 * The validator of tool results every MCP client of the session shares (decision 263). The SDK's
 * default gives each `Client` an Ajv instance of its own and compiles every listed tool's
 * `outputSchema` when the tools are listed: with 50 servers, 50 Ajv instances with their format
 * tables and compiled code, most of it for tools never called. Here there is one Ajv, made on
 * the first validation, and a schema is compiled on the first result it checks. The compiled
 * function belongs to the tool's validator (dropped with its client or its next listing): Ajv's
 * own cache is emptied of it at once, so re-listings do not pile up in the shared instance and two
 * servers' schemas with the same `$id` never meet. A schema Ajv cannot compile fails that tool's
 * calls with Ajv's message, not the server's whole listing.
 */
export const sharedSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: ValidateFunction | undefined;
    return (input) => {
      const ajv = sharedAjv();
      if (compiled === undefined) {
        try {
          compiled = ajv.compile(schema);
        } finally {
          ajv.removeSchema(schema);
        }
      }
      return compiled(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(compiled.errors) };
    };
  },
};

let ajvInstance: Ajv | undefined;

/** The SDK's Ajv options (its `createDefaultAjvInstance`), so results are judged exactly alike. */
function sharedAjv(): Ajv {
  if (ajvInstance === undefined) {
    ajvInstance = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    // ajv-formats is CommonJS: its default export, seen from ESM, may be the module object.
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
    addFormats(ajvInstance);
  }
  return ajvInstance;
}
