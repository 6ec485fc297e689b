// Guest side of `svc:http`: replies become Response objects (headers as a Map, json(),
// throwForStatus(), the body decoded from bytes); download() reports what it wrote.
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function httpGuest(call: GuestCall, P: GuestPrimordials): object {
  // The host sends the body as bytes: decoded here, in the run's own isolate, as UTF-8
  // (malformed bytes as U+FFFD, a leading byte-order mark dropped, like TextDecoder).
  const text = (raw: unknown): string => {
    if (!P.isUint8Array(raw)) return raw as string;
    const decoded = P.utf8Decode(raw);
    return P.StringPrototypeCharCodeAt(decoded, 0) === 0xfeff ? P.StringPrototypeSlice(decoded, 1) : decoded;
  };
  const wrap = (r: unknown) => {
    const status = P.own(r, 'status');
    const statusText = P.own(r, 'statusText');
    const url = P.own(r, 'url');
    const body = text(P.own(r, 'body'));
    const headers = new P.Map_();
    const raw = P.own(r, 'headers');
    const names = raw === null || typeof raw !== 'object' ? [] : P.ObjectKeys(raw);
    for (let i = 0; i < names.length; i++) P.MapPrototypeSet(headers, names[i], raw[names[i]]);
    const ok = status >= 200 && status < 300;
    return P.ObjectFreeze({
      status, statusText, ok, headers, body, url,
      json() { return P.JSONParse(body); },
      throwForStatus() { if (!ok) throw new P.Error_('HTTP ' + status + (statusText ? ' ' + statusText : '') + ' from ' + url); },
      toString() { return 'Response(' + status + ' ' + statusText + ', ' + url + ')'; },
    });
  };
  const del = (url: unknown, headers: unknown) => wrap(call('delete', url, headers));
  return {
    get: (url: unknown, headers: unknown) => wrap(call('get', url, headers)),
    head: (url: unknown, headers: unknown) => wrap(call('head', url, headers)),
    options: (url: unknown, headers: unknown) => wrap(call('options', url, headers)),
    delete: del,
    del,
    post: (url: unknown, body: unknown, headers: unknown) => wrap(call('post', url, body, headers)),
    put: (url: unknown, body: unknown, headers: unknown) => wrap(call('put', url, body, headers)),
    patch: (url: unknown, body: unknown, headers: unknown) => wrap(call('patch', url, body, headers)),
    request: (method: unknown, url: unknown, body: unknown, headers: unknown) => wrap(call('request', method, url, body, headers)),
    download: (url: unknown, path: unknown, options: unknown) => {
      const r = call('download', url, path, options);
      const status = P.own(r, 'status');
      const bytesWritten = P.own(r, 'bytesWritten');
      const written = P.own(r, 'path');
      return P.ObjectFreeze({
        status, bytesWritten, contentType: P.own(r, 'contentType'), duration_ms: P.own(r, 'duration_ms'), finalUrl: P.own(r, 'finalUrl'), path: written,
        toString() { return 'Download(' + status + ', ' + bytesWritten + ' bytes -> ' + written + ')'; },
      });
    },
  };
}
