import type { ProjectScope } from "../collections/collection";
import type { PoolClient } from "pg";
import { queryOne } from "../db/query";
import { sql } from "../db/sql";
import { projectTotal, withLimitCheck } from "../projects/counters";
import { collectionState, StaleCollectionState, withFreshState, type CollectionState } from "../documents/collection-state";
import { newDocumentId } from "../documents/document-id";
import { schemaFor } from "../documents/document-schema";
import { ID_TAKEN, insertDocument, replaceDocument } from "../documents/document-statements";
import { shallowPatch } from "../documents/patch-document";
import { prepareDocument } from "../documents/prepare-document";
import { lockDocument } from "../documents/save-document";
import { checkOutsideFileRecords, readProperty } from "../documents/document-property";
import { AppError, notFound, paymentRequired, validationError } from "../errors";
import { FILES_LIMIT_MESSAGE, insertFileRows } from "./file-rows";
import type { FileRecord } from "./file-record";
import type { StagedUploads, StagedFile } from "./staged-uploads";
import { commitBlobs, type CommittedBlobs } from "./upload-files";
import { documentWriteTransaction } from "../documents/write-transaction";

type Doc = Record<string, unknown>;

/** Which document write carries the files: the four multipart document writes of CONTRACT §5. */
export type DocumentWrite =
  | { kind: "create"; id?: string }
  | { kind: "save"; id: string; authorize?: (action: "write" | "update") => void }
  | { kind: "patch"; id: string }
  | { kind: "set"; id: string; path: string[] };

/**
 * A multipart document write with file parts (CONTRACT §5-6): every file part becomes a file
 * record whose copy is the value of the property the part names (dotted names allowed); repeated
 * parts of one name are stored whole for an array-of-file schema property, the first only
 * otherwise. The file records, `projects.files_size` and the document write commit in ONE
 * transaction; whatever fails (409, 402, 422 from the schema, a crash of the statement), the
 * blobs are removed and nothing changes. Files the document held before and no longer holds go
 * with the same transaction (replaceDocument releases them), their bytes after commit.
 */
export async function writeDocumentWithFiles(
  scope: ProjectScope & { filesSizeLimit: number },
  input: { collectionId: string; write: DocumentWrite; fields: Doc; uploads: StagedUploads },
): Promise<{ doc: Doc; created: boolean }> {
  const { projectId } = scope;
  const { collectionId, write, fields } = input;
  let blobs: CommittedBlobs | undefined;
  try {
    const documentId = write.kind === "create" || write.kind === "save" ? newDocumentId(fields._id, write.id) : write.id;
    if (write.kind === "set" && write.path[0] === "_id") throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
    if (write.kind === "patch" && "_id" in fields && fields._id !== documentId)
      throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);

    // Which parts are stored: decided once, from the schema as it is now.
    const state = await collectionState(projectId, collectionId);
    const filePaths = state.schema ? schemaFor(projectId, collectionId, state.schema).files : [];
    const groups = groupByField(await input.uploads.settle());
    const chosen: { staged: StagedFile; property: string[] }[] = [];
    const shapes = new Map<string, { path: string[]; array: boolean }>();
    for (const [field, files] of groups) {
      const relative = field.split(".");
      if (relative.some((s) => s === "" || s === "__proto__")) throw validationError("Validation error", [{ property: field, message: "malformed part name" }]);
      // On a property path (PUT .../<a>/<b>/), the file is that property's value whatever the part's name.
      const property = write.kind === "set" ? write.path : relative;
      const array = filePaths.some((p) => sameShape(p, [...property, "*"]));
      shapes.set(field, { path: property, array });
      for (const staged of array ? files : files.slice(0, 1)) chosen.push({ staged, property });
      if (write.kind === "set") break;
    }
    // Parts not stored (the 2nd and later of a name without an array schema) leave no trace.
    const chosenSet = new Set(chosen.map((c) => c.staged));
    await Promise.all([...groups.values()].flat().filter((f) => !chosenSet.has(f)).map((f) => input.uploads.discardOne(f)));

    blobs = await commitBlobs(
      chosen.map(({ staged, property }) => ({ staged, target: { projectId, collectionId, documentId, property: property.join(".") } })),
    );
    const records = new Map<string, FileRecord[]>();
    chosen.forEach(({ staged }, i) => {
      const list = records.get(staged.field) ?? [];
      list.push(blobs!.records[i]);
      records.set(staged.field, list);
    });
    const committed = blobs;

    // The document's part of the write, in the transaction below.
    const writeDocument = async (client: PoolClient, fresh: CollectionState): Promise<{ doc: Doc; created: boolean }> => {
      const withFiles = (base: Doc): Doc => {
        for (const [field, shape] of shapes) {
          const list = records.get(field) ?? [];
          setPath(base, shape.path, shape.array ? list : list[0]);
        }
        return base;
      };
      if (write.kind === "create") {
        const doc = await prepareDocument(projectId, collectionId, fresh, documentId, withFiles(structuredClone(fields)), undefined, { scope, db: client }, committed.records);
        return { doc: await insertDocument(client, scope, collectionId, fresh, doc), created: true };
      }
      const before = await lockDocument(client, projectId, collectionId, documentId);
      if (write.kind === "save") write.authorize?.(before ? "update" : "write");
      if (!before && write.kind !== "save") throw notFound("Document not found.");
      // An upload into a path inside a file record (`photo/name/`) is refused as a JSON write there is.
      if (write.kind === "set") checkOutsideFileRecords(before!, write.path);
      let body: Doc;
      if (write.kind === "save") body = withFiles(structuredClone(fields));
      // Multipart PATCH is the original service's update: top-level keys replaced (CONTRACT §5).
      else if (write.kind === "patch") body = withFiles(shallowPatch(structuredClone(before!), fields));
      else body = withFiles(structuredClone(before!));
      const doc = await prepareDocument(projectId, collectionId, fresh, documentId, body, before, { scope, db: client }, committed.records);
      if (!before) {
        try {
          return { doc: await insertDocument(client, scope, collectionId, fresh, doc), created: true };
        } catch (error) {
          // A concurrent save created it after our lock found nothing: a save, so again (it replaces).
          if (error instanceof AppError && error.message === ID_TAKEN) throw new StaleCollectionState();
          throw error;
        }
      }
      // On a property path, `created` tells whether that property was absent (201, CONTRACT §5).
      const created = write.kind === "set" && !hasProperty(before, write.path);
      return { doc: await replaceDocument(client, scope, collectionId, fresh, before, doc), created };
    };

    const limited = scope.filesSizeLimit > 0;
    // Either limit makes this the write whose end the warnings look at (lib/projects/counters.ts).
    return await withFreshState(projectId, collectionId, (fresh) =>
      documentWriteTransaction(scope, fresh.schema, (client) =>
        withLimitCheck(client, projectId, limited || scope.dataSizeLimit > 0, async () => {
          // Under a files size limit the check is of the write as a whole (CONTRACT §2: a write
          // that would pass the limit): the files it adds less those its document lets go, so a
          // file replaced by one no larger is never refused. The project row is locked meanwhile.
          const before = limited ? await filesSizeNow(client, projectId) : 0;
          await insertFileRows(client, committed.rows, 0, committed.markerIds);
          const written = await writeDocument(client, fresh);
          if (limited) {
            const after = await filesSizeNow(client, projectId);
            if (after > scope.filesSizeLimit && after > before) throw paymentRequired(FILES_LIMIT_MESSAGE);
          }
          return written;
        }),
      ),
    );
  } catch (error) {
    if (blobs) await blobs.rollback();
    await input.uploads.discard();
    throw error;
  }
}

/** The project's files size now, pending deltas of this transaction included. */
async function filesSizeNow(client: PoolClient, projectId: string): Promise<number> {
  const row = await queryOne<{ n: string }>(sql`SELECT ${projectTotal(projectId, "files_size")} AS n`, client);
  return Number(row?.n ?? 0);
}

function groupByField(files: StagedFile[]): Map<string, StagedFile[]> {
  const groups = new Map<string, StagedFile[]>();
  for (const file of files) {
    const list = groups.get(file.field) ?? [];
    list.push(file);
    groups.set(file.field, list);
  }
  return groups;
}

function sameShape(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** Sets a value at a path, creating objects on the way (array indexes walk arrays). */
function setPath(doc: Doc, path: string[], value: unknown): void {
  let node: Record<string, unknown> = doc;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (next === null || typeof next !== "object") node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

function hasProperty(doc: Doc, path: string[]): boolean {
  try {
    readProperty(doc, path);
    return true;
  } catch {
    return false;
  }
}
