// Host fuel cost classes. Operations charge these through
// `call.charge(...)`; the dispatcher adds CALL per call and GATE per capability check.
export const HOST_FUEL = Object.freeze({
  CALL: 16,
  GATE: 400,
  /** per 8 bytes copied between isolate and host */
  COPY_PER_8_BYTES: 1,
  /** per 4 bytes read, written, sent or received */
  IO_PER_4_BYTES: 1,
  SYSCALL: 400,
  /** per byte parsed by the host */
  PARSE_PER_BYTE: 6,
  /** per byte hashed */
  HASH_PER_BYTE: 4,
  REGEX_COMPILE: 2000,
  REGEX_PER_BYTE: 8,
  /** per element produced */
  ELEM: 10,
});
