// The forms a secret the run was given may take in a later request, for masking it out of
// that request before it is digested (keeper.ts digestOf): the value as it stands in JSON
// text, percent-encoded (a URL or a form), and in base64 (standard or URL-safe), also where
// a Package encoded it inside a longer text (Basic auth: base64 of `user:secret`). In base64
// the secret's characters depend on its offset in the encoded text (modulo 3), so each of
// the three alignments is searched for, and the 4-character groups on either side (which
// mix the secret's first or last bytes with their neighbours) are masked with it.
// Recording and replay mask alike, so their digests still agree.

const MASK = '\u0000secret\u0000';
/** Base64 characters one group of 3 bytes takes. */
const GROUP = 4;
/** A shorter base64 core than this is not searched for: it would match unrelated text. */
const MIN_CORE = 4;

export interface SecretForms {
  /** Texts masked where they stand. */
  literal: string[];
  /** Base64 cores masked with the group on either side. */
  base64: string[];
}

export function secretForms(value: string): SecretForms {
  const literal = new Set([JSON.stringify(value).slice(1, -1)]);
  const percent = encodeURIComponent(value);
  literal.add(percent);
  literal.add(percent.replace(/%20/g, '+'));
  const bytes = Buffer.from(value, 'utf8');
  const base64 = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Only whole groups of the secret's own bytes: the first group mixes in what precedes it, the last partial one what follows.
    const core = encoded.slice(offset === 0 ? 0 : GROUP, Math.floor((offset + bytes.length) / 3) * GROUP);
    if (core.length < MIN_CORE) continue;
    base64.add(core);
    base64.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return { literal: [...literal].filter((form) => form !== ''), base64: [...base64] };
}

/** `text` with every form of each secret masked, the longest forms first. */
export function maskSecrets(text: string, secrets: readonly SecretForms[]): string {
  let masked = text;
  const literal = secrets.flatMap((forms) => forms.literal).sort((a, b) => b.length - a.length);
  for (const form of literal) masked = masked.split(form).join(MASK);
  const cores = secrets.flatMap((forms) => forms.base64).sort((a, b) => b.length - a.length);
  for (const core of cores) {
    for (let at = masked.indexOf(core); at !== -1; at = masked.indexOf(core)) {
      masked = masked.slice(0, Math.max(0, at - GROUP)) + MASK + masked.slice(at + core.length + GROUP);
    }
  }
  return masked;
}
