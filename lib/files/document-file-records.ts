import type { Queryable } from "../db/query";
import { validationError, type PropertyError } from "../errors";
import { setOwn } from "../query/json-input";
import { fileIdsIn, fileRecord, isFileRecordShape, type FileRecord } from "./file-record";
import { documentFileRows } from "./file-rows";

type Doc = Record<string, unknown>;

/** Keys a client's copy of a file record may differ in: the server's bookkeeping, refreshed on every read. */
const REFRESHED_KEYS = new Set(["last_access"]);

export const FILE_RECORD_CHANGED = "holds a file: its record changes only by uploading";
export const NOT_A_FILE_OF_THIS_DOCUMENT = "is not a file of this document: a file property is filled by uploading";

/**
 * `checkFileRecords` for a document write, 422 naming each violation. A record the document does
 * not hold now may still be one of its files: kept when it was deleted (`delete_files: false`)
 * and brought back with it (a restore, an import), or made in this very transaction (a
 * processor's output): such records are looked up among the document's own rows (`db`: the
 * write's transaction, when it has one) before anything is refused.
 */
export async function checkDocumentFileRecords(
  db: Queryable | undefined,
  target: { projectId: string; collectionId: string; documentId: string },
  doc: Doc,
  own: FileRecord[],
  filePaths: string[][],
): Promise<void> {
  let errors = checkFileRecords(doc, own, filePaths);
  const known = new Set(own.map((record) => record._id));
  const unknown = [...fileIdsIn(doc)].filter((id) => !known.has(id));
  if (errors.some((e) => e.message === NOT_A_FILE_OF_THIS_DOCUMENT) && unknown.length) {
    const rows = await documentFileRows(db, target.projectId, target.collectionId, target.documentId, unknown);
    if (rows.length) errors = checkFileRecords(doc, [...own, ...rows.map(fileRecord)], filePaths);
  }
  if (errors.length) throw validationError("Validation error", errors);
}

/**
 * What a document write may do with file records (CONTRACT §6: a record reads the same through
 * `_files` and through its document; a property holds a file once one is uploaded to it). The
 * write may keep, move or drop the records the document holds (`own`: those stored before and
 * those this write uploads); it may neither change one (`$set photo.size`, a merge-patch of
 * `photo`) nor bring one of its own making, or another document's, anywhere in the document or
 * as any value of a `file` property of the schema (`filePaths`, `*` for every array element).
 *
 * Each record kept is put back as the server wrote it, so a client's stale `last_access` never
 * reaches the stored copy. Mutates `doc`; answers the violations, each naming its path.
 */
export function checkFileRecords(doc: Doc, own: FileRecord[], filePaths: string[][]): PropertyError[] {
  const errors: PropertyError[] = [];
  const byId = new Map(own.map((record) => [record._id, record]));
  const path: string[] = [];

  const visit = (value: unknown): unknown => {
    if (!value || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(String(i));
        const next = visit(value[i]);
        if (next !== value[i]) value[i] = next;
        path.pop();
      }
      return value;
    }
    const node = value as Doc;
    const record = typeof node._id === "string" ? byId.get(node._id) : undefined;
    if (record) {
      if (!sameRecord(node, record)) errors.push({ property: path.join("."), message: FILE_RECORD_CHANGED });
      return { ...record };
    }
    if (isFileRecordShape(node)) {
      errors.push({ property: path.join("."), message: NOT_A_FILE_OF_THIS_DOCUMENT });
      return value;
    }
    for (const key of Object.keys(node)) {
      path.push(key);
      const next = visit(node[key]);
      if (next !== node[key]) setOwn(node, key, next);
      path.pop();
    }
    return value;
  };
  // The document's own `_id` is its identity, never a file's: only what it holds is walked.
  for (const key of Object.keys(doc)) {
    if (key === "_id") continue;
    path.push(key);
    const next = visit(doc[key]);
    if (next !== doc[key]) setOwn(doc, key, next);
    path.pop();
  }

  // Whatever the schema calls a file is one of the document's records (the shape check above
  // already named records of anyone else's making).
  for (const filePath of filePaths)
    for (const { at, value } of valuesAt(doc, filePath))
      // Not an object at all: the schema's own type check names it.
      if (isPlainObject(value) && !(isFileRecordShape(value) && byId.has(value._id)) && !errors.some((e) => e.property === at))
        errors.push({ property: at, message: NOT_A_FILE_OF_THIS_DOCUMENT });
  return errors;
}

function isPlainObject(value: unknown): value is Doc {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Every key of the record but the refreshed ones, equal; nothing else; `last_access` may be left out (a read with `fields_exclude`). */
function sameRecord(copy: Doc, record: FileRecord): boolean {
  const stored = record as unknown as Doc;
  if (!Object.keys(copy).every((key) => Object.hasOwn(stored, key))) return false;
  return Object.keys(stored).every((key) => REFRESHED_KEYS.has(key) || (Object.hasOwn(copy, key) && copy[key] === stored[key]));
}

/** The values at a schema path (`*`: each element of an array), with their concrete dotted paths. */
function valuesAt(doc: unknown, schemaPath: string[]): { at: string; value: unknown }[] {
  let found: { at: string[]; value: unknown }[] = [{ at: [], value: doc }];
  for (const segment of schemaPath) {
    const next: typeof found = [];
    for (const { at, value } of found) {
      if (segment === "*") {
        if (Array.isArray(value)) value.forEach((item, i) => next.push({ at: [...at, String(i)], value: item }));
      } else if (value && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, segment)) {
        next.push({ at: [...at, segment], value: (value as Doc)[segment] });
      }
    }
    found = next;
  }
  return found.filter((f) => f.value !== undefined).map(({ at, value }) => ({ at: at.join("."), value }));
}
