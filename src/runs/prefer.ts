// `Prefer: respond-async` (RFC 7240): the client asks to be answered once the run is
// admitted rather than when it ends. Preferences are comma-separated, each a token with
// optional `;` parameters, in any case; several Prefer headers add up.
export function prefersAsync(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((preference) => preference.split(';')[0].trim().toLowerCase() === 'respond-async');
}
