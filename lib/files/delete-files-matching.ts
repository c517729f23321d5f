import { AppError } from "../errors";
import { matchFilter, parseFilter } from "../query";
import type { Json } from "../query";
import { checkFileDeletable, deleteFile, listFiles } from "./files-collection";
import { filesFilter } from "./file-record";

/**
 * Delete by criteria on `_files` (CONTRACT §3): every record matching `filter` (over its nine
 * keys; none: every file of the project) goes through the single-file deletion, so its bytes
 * go after commit, its document loses the property and `files_size` stays exact. One
 * transaction per file: a file deleted meanwhile by someone else is skipped, not an error. A
 * file whose document may not lose it (immutable, required) refuses the whole request first.
 */
export async function deleteFilesMatching(scope: { projectId: string; dataSizeLimit: number }, filter: Record<string, unknown> | undefined): Promise<number> {
  const parsed = parseFilter(filesFilter(filter) ?? {});
  const matching = (await listFiles(scope.projectId)).filter((record) => matchFilter(parsed, record as unknown as Json));
  for (const record of matching) await checkFileDeletable(scope.projectId, record._id);
  let deleted = 0;
  for (const record of matching) {
    try {
      await deleteFile(scope, record._id);
      deleted++;
    } catch (error) {
      if (!(error instanceof AppError && error.kind === "notFound")) throw error;
    }
  }
  return deleted;
}
