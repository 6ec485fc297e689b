// Public API of the JSON-Schema validator (tool arguments, model outputs).
export { checkJsonValues, compileSchema, violation, SchemaError, MAX_SCHEMA_BYTES, type JsonSchema } from './validator';
