import { transaction } from "../db/query";
import { AppError } from "../errors";
import { matchFilter, parseFilter } from "../query";
import type { Json } from "../query";
import type { ProjectScope } from "../collections/collection";
import { deleteFileWith, listFiles } from "./files-collection";
import { filesFilter } from "./file-record";

/**
 * Delete by criteria on `_files` (CONTRACT §3): every record matching `filter` (over its nine
 * keys; none: every file of the project) goes the way of the single-file deletion (bytes after
 * commit, the holding property unset, `files_size` exact), all in ONE transaction: a file whose
 * document may not lose it (immutable, required; or two files of which it may lose only one)
 * refuses the request (422) with none deleted. A file deleted meanwhile by someone else is
 * skipped, not an error.
 */
export async function deleteFilesMatching(scope: ProjectScope, filter: Record<string, unknown> | undefined): Promise<number> {
  const parsed = parseFilter(filesFilter(filter) ?? {});
  const matching = (await listFiles(scope.projectId)).filter((record) => matchFilter(parsed, record as unknown as Json));
  return transaction(async (client) => {
    let deleted = 0;
    for (const record of matching) {
      try {
        await deleteFileWith(client, scope, record._id);
        deleted++;
      } catch (error) {
        if (!(error instanceof AppError && error.kind === "notFound")) throw error;
      }
    }
    return deleted;
  });
}
