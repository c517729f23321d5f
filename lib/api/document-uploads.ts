import type { Context } from "hono";
import type { StagedUploads } from "../files/staged-uploads";
import { writeDocumentWithFiles, type DocumentWrite } from "../files/write-document-files";
import type { ApiEnv } from "../http/env";
import { readProperty } from "../documents/document-property";
import { readUploadBody } from "../http/upload-body";
import { parseProcessOnly } from "../processors/process-only";
import { withCurrentFileRecords } from "../files/files-collection";

/**
 * File parts on the documents routes (CONTRACT §5-6). `readDocumentMultipart` replaces
 * `readMultipart` there: it streams file parts to temp files and remembers them for the request;
 * a handler then asks `uploadedDocument` whether to finish the write with the files (one
 * transaction for records, sizes and the document) or to go on as a plain JSON-literal body.
 */
const uploadsOf = new WeakMap<Request, StagedUploads>();

export async function readDocumentMultipart(c: Context<ApiEnv>): Promise<Record<string, unknown>> {
  const { fields, uploads } = await readUploadBody(c, c.get("project")._id);
  if (uploads.count > 0) uploadsOf.set(c.req.raw, uploads);
  return fields;
}

/** Runs `check` (an authorization); when it throws, the request's staged files go first. */
export async function authorizeUploads(c: Context<ApiEnv>, check: () => void): Promise<void> {
  try {
    check();
  } catch (error) {
    await uploadsOf.get(c.req.raw)?.discard();
    uploadsOf.delete(c.req.raw);
    throw error;
  }
}

/** The response of a write that carried files, or undefined when the body had none. */
export async function uploadedDocument(
  c: Context<ApiEnv>,
  collectionId: string,
  write: DocumentWrite,
  fields: Record<string, unknown>,
): Promise<Response | undefined> {
  const uploads = uploadsOf.get(c.req.raw);
  if (!uploads) return undefined;
  const project = c.get("project");
  const { doc, created } = await writeDocumentWithFiles(
    {
      projectId: project._id,
      dataSizeLimit: project.settings.data_size_limit ?? 0,
      filesSizeLimit: project.settings.files_size_limit ?? 0,
      processOnly: parseProcessOnly(c.req.query("process_only"), c.req.header("x-process-only")),
    },
    { collectionId, write, fields, uploads },
  );
  // As a read shows it: the other file records it holds as they are now (lib/api/documents.ts asRead).
  const [fresh] = await withCurrentFileRecords(project._id, collectionId, [doc]);
  // A property path answers the property's new value, 201 when it was absent (CONTRACT §5).
  if (write.kind === "set") return c.json(readProperty(fresh, write.path) as object, created ? 201 : 200);
  return c.json(fresh, write.kind === "create" || (write.kind === "save" && created) ? 201 : 200);
}

