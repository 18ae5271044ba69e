/**
 * The compression thread's side (started by `compression_worker.ts`): brotli and gzip jobs, one at
 * a time, answered with the compressed bytes (transferred). Deno's `node:zlib` compresses on the
 * calling thread even through its callback API, so compression that must not stall the event loop
 * (assets at quality 11, a cached render prefix upgraded to quality 10) runs here.
 */
import zlib from "node:zlib";
import type { CompressionJob, CompressionReply } from "./compression_worker.ts";
import { brotliParams } from "./content_coding.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<CompressionJob>) => void) | null;
  postMessage(message: CompressionReply, transfer?: Transferable[]): void;
};

scope.onmessage = ({ data: job }) => {
  try {
    const out = job.coding === "br"
      ? zlib.brotliCompressSync(job.bytes, {
        params: brotliParams(job.quality, job.bytes.byteLength),
        ...(job.flush ? { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH } : {}),
      })
      : zlib.gzipSync(job.bytes, { level: job.quality });
    const bytes = new Uint8Array(out.byteLength);
    bytes.set(out);
    scope.postMessage({ id: job.id, bytes }, [bytes.buffer]);
  } catch (err) {
    scope.postMessage({ id: job.id, error: String(err) });
  }
};
