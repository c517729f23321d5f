import { StagedUploads } from "../files/staged-uploads";
import type { Context } from "hono";
import { readMultipart } from "./multipart-body";
import { requestBodyStream } from "./request-body";

/**
 * Reads a multipart upload: its fields as values, its file parts streamed to temp files (the
 * domain's `StagedUploads`, which sees plain names and streams, never the request). On any
 * failure every temp file is gone before the error is thrown. Then the domain commits:
 * `writeDocumentWithFiles` or `uploadToFiles` (lib/files), "blob first, then row".
 */
export async function readUploadBody(c: Context, projectId: string): Promise<{ fields: Record<string, unknown>; uploads: StagedUploads }> {
  const request = c.req.raw;
  const uploads = new StagedUploads(request.signal, projectId);
  try {
    const fields = await Promise.race([readMultipart(request, requestBodyStream(c), { onFile: uploads.onFile }), uploads.failed]);
    await uploads.settle();
    return { fields, uploads };
  } catch (error) {
    await uploads.discard();
    throw error;
  }
}
