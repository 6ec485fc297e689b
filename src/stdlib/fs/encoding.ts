// Text encodings of file contents: the decoding every text read uses and the guess
// `fs.peek` reports from a file's first bytes.
/** BOM first, then UTF-8 validity, else latin1; CRLF if one occurs in the preview. */
export function describeEncoding(head: Buffer): { preview: string; encoding: string; lineEnding: 'lf' | 'crlf' } {
  let encoding = 'utf-8';
  let preview: string;
  if (head[0] === 0xff && head[1] === 0xfe) {
    encoding = 'utf-16le';
    preview = head.subarray(2).toString('utf16le');
  } else if (head[0] === 0xfe && head[1] === 0xff) {
    encoding = 'utf-16be';
    const body = head.subarray(2, 2 + ((head.length - 2) & ~1));
    preview = Buffer.from(body).swap16().toString('utf16le');
  } else {
    try {
      preview = new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0));
    } catch {
      // A multi-byte sequence cut at the preview's end is still UTF-8.
      const lossy = new TextDecoder('utf-8').decode(head);
      const damaged = (lossy.match(/\uFFFD/g) ?? []).length;
      if (damaged <= 1 && lossy.lastIndexOf('\uFFFD') >= lossy.length - 1) preview = lossy;
      else {
        encoding = 'latin1';
        preview = head.toString('latin1');
      }
    }
  }
  return { preview, encoding, lineEnding: head.includes(Buffer.from('\r\n')) ? 'crlf' : 'lf' };
}

/** UTF-8 with a leading byte-order mark dropped. */
export function decodeText(content: Buffer): string {
  const text = new TextDecoder('utf-8').decode(content);
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
