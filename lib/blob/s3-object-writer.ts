import { Writable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from "@aws-sdk/client-s3";

export interface S3ObjectWriterOptions {
  partSize: number;
  /** Parts uploading at once; the stream holds back its writer while this many are in flight. */
  queueSize: number;
}

/**
 * A Writable that streams its bytes to one S3 object: one PutObject when they fit in a part,
 * else a multipart upload with at most `queueSize` parts in flight. The object exists once
 * `finish` has fired; an error or `destroy` cancels the requests in flight and, once they have
 * settled, aborts the multipart upload, so no part is left behind.
 *
 * Why not lib-storage's `Upload` (still used by the benchmark as the raw SDK's baseline): it
 * concatenates every part into a freshly allocated buffer. V8 counts those as external memory,
 * and a process streaming at a few hundred MB/s then runs a full garbage collection every few
 * parts, marking the whole server heap each time: for a 200 MiB upload more CPU than its md5. Here a part is copied into one of the upload's own part buffers, which go back to it
 * when their part is sent, so an upload allocates at most `queueSize + 1` of them.
 */
export function s3ObjectWriter(client: S3Client, Bucket: string, Key: string, { partSize, queueSize }: S3ObjectWriterOptions): Writable {
  // Received bytes not yet in a part: the chunks themselves, not copies.
  let pending: Buffer[] = [];
  let pendingLength = 0;
  const spare: Buffer[] = [];
  let uploadId: Promise<string> | undefined;
  let partNumber = 0;
  const parts: CompletedPart[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: Error | undefined;
  let finishing: Promise<void> | undefined;
  let completed = false;
  // Cancels the requests in flight when the stream is destroyed (a hung store must not hold the
  // cleanup, and with it the client's answer).
  const cancel = new AbortController();
  const options = { abortSignal: cancel.signal };

  /** Moves the first `length` pending bytes into a part buffer (one of the spare ones when it can). */
  function takePart(length: number): Buffer {
    const part = spare.pop() ?? Buffer.allocUnsafeSlow(partSize);
    let filled = 0;
    while (filled < length) {
      const chunk = pending[0];
      const n = chunk.copy(part, filled, 0, Math.min(chunk.length, length - filled));
      filled += n;
      if (n === chunk.length) pending.shift();
      else pending[0] = chunk.subarray(n);
    }
    pendingLength -= length;
    return part;
  }

  /** Sends the first `length` pending bytes as the next part. */
  function sendPart(length: number): void {
    const part = takePart(length);
    const PartNumber = ++partNumber;
    uploadId ??= client.send(new CreateMultipartUploadCommand({ Bucket, Key }), options).then((created) => created.UploadId!);
    const sending: Promise<void> = uploadId
      .then((UploadId) => client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part.subarray(0, length) }), options))
      .then(
        (answer) => {
          parts.push({ ETag: answer.ETag, PartNumber });
          spare.push(part);
        },
        (error: Error) => {
          failure ??= error;
        },
      )
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  }

  async function settle(limit: number): Promise<void> {
    while (inFlight.size > limit) await Promise.race(inFlight);
    if (failure) throw failure;
  }

  async function complete(): Promise<void> {
    if (partNumber === 0) {
      // Everything fits in one request.
      const body = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingLength);
      pending = [];
      await client.send(new PutObjectCommand({ Bucket, Key, Body: body }), options);
      completed = true;
      return;
    }
    if (pendingLength > 0) sendPart(pendingLength);
    await settle(0);
    parts.sort((a, b) => a.PartNumber! - b.PartNumber!);
    await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: await uploadId!, MultipartUpload: { Parts: parts } }), options);
    completed = true;
  }

  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (failure) return callback(failure);
      pending.push(chunk);
      pendingLength += chunk.length;
      // A full part goes once a byte beyond it has come: a blob of exactly one part stays one PutObject.
      while (pendingLength > partSize) sendPart(partSize);
      if (inFlight.size < queueSize) return callback();
      settle(queueSize - 1).then(() => callback(), callback);
    },
    final(callback) {
      finishing = complete();
      finishing.then(() => callback(), callback);
    },
    destroy(error, callback) {
      pending = [];
      // Parts and a completion still in flight would land after an abort (or the caller's
      // delete): cancel them and let them settle first.
      if (!completed) cancel.abort();
      void Promise.allSettled([...inFlight, finishing])
        .then(async () => {
          if (uploadId && !completed) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: await uploadId }));
        })
        .catch(() => undefined)
        .then(() => callback(error));
    },
  });
}
