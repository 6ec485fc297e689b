// The lazily evaluated web platform (./lazy.ts): importing this module evaluates the web
// class modules a hello-world run does not need, and hands their globals over.
import { AbortController, AbortSignal } from './abort';
import { Blob, File, FormData } from './blob';
import { fetch, fetchFor, Request, Response } from './fetch';
import { Headers } from './headers';
import { CryptoKey, subtle } from './subtle';
import { ReadableByteStreamController, ReadableStream, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableStreamDefaultController, ReadableStreamDefaultReader } from './streams';
import { WritableStream, WritableStreamDefaultController, WritableStreamDefaultWriter } from './writable';
import { ByteLengthQueuingStrategy, CountQueuingStrategy, TransformStream, TransformStreamDefaultController } from './transform';
import './pipe';
import { FileReader, ProgressEvent } from './file-reader';
import { structuredClone } from '../clone';
import { provide } from '../lazy-group';
import { platformGroup } from './lazy';
import { sealed } from './sealed';
provide(platformGroup, {
  globals: {
    AbortSignal: sealed(AbortSignal),
    AbortController: sealed(AbortController),
    Headers: sealed(Headers),
    Blob: sealed(Blob),
    File: sealed(File),
    FormData: sealed(FormData),
    FileReader: sealed(FileReader),
    ProgressEvent: sealed(ProgressEvent),
    ReadableStream: sealed(ReadableStream),
    ReadableStreamDefaultReader: sealed(ReadableStreamDefaultReader),
    ReadableStreamDefaultController: sealed(ReadableStreamDefaultController),
    ReadableStreamBYOBReader: sealed(ReadableStreamBYOBReader),
    ReadableStreamBYOBRequest: sealed(ReadableStreamBYOBRequest),
    ReadableByteStreamController: sealed(ReadableByteStreamController),
    WritableStream: sealed(WritableStream),
    WritableStreamDefaultWriter: sealed(WritableStreamDefaultWriter),
    WritableStreamDefaultController: sealed(WritableStreamDefaultController),
    TransformStream: sealed(TransformStream),
    TransformStreamDefaultController: sealed(TransformStreamDefaultController),
    ByteLengthQueuingStrategy: sealed(ByteLengthQueuingStrategy),
    CountQueuingStrategy: sealed(CountQueuingStrategy),
    Request: sealed(Request),
    Response: sealed(Response),
    fetch,
    CryptoKey: sealed(CryptoKey),
    structuredClone,
  },
  subtle,
  fetchFor,
  structuredClone,
});
