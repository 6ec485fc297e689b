// Public API of the JSON-Schema validator (tool arguments, model outputs).
export { checkJsonValues, compileSchema, violation, validatorCacheUse, SchemaError, MAX_SCHEMA_BYTES, CACHED_VALIDATOR_BYTES, type JsonSchema } from './validator';
