// WHATWG Encoding implementation (utf-8, utf-16le/be and the legacy single-byte encodings,
// every label, fatal, ignoreBOM, streaming, encodeInto), bundled into the prelude. It calls
// the built-ins as it finds them, so trusted guest code never uses it (it uses utf8Encode
// and utf8Decode of ../encoding.ts, built on the primordials): a program that patches a built-in only
// changes what its own TextDecoder answers. Each run has a fresh context, and in runs that
// load Packages the built-ins are frozen before any program code runs (lockdown.ts).
// The stream forms take the global TransformStream when they are constructed.
// It is evaluated with the other lazily made web globals (./platform.ts), the first time a
// program touches one: building its tables was a quarter of the prelude's evaluation.
import { TextDecoder, TextEncoder, TextDecoderStream, TextEncoderStream } from '@exodus/bytes/encoding-lite.js';
import { named } from '../idl';
import { provide } from '../lazy-group';
import { textGroup } from './lazy';
export type { TextDecoder };

provide(textGroup, {
  globals: {
    TextEncoder: named(TextEncoder, 'TextEncoder'),
    TextDecoder: named(TextDecoder, 'TextDecoder'),
    TextEncoderStream: named(TextEncoderStream, 'TextEncoderStream'),
    TextDecoderStream: named(TextDecoderStream, 'TextDecoderStream'),
  },
  TextDecoder,
  decode: TextDecoder.prototype.decode,
});
