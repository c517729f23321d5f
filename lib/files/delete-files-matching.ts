import { query, transaction } from "../db/query";
import { sql } from "../db/sql";
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
  const ids = matching.map((record) => record._id);
  return transaction(async (client) => {
    const present = () => query<{ id: string }>(sql`SELECT id FROM files WHERE project_id = ${scope.projectId} AND id = ANY(${ids}::text[])`, client);
    const before = (await present()).length;
    for (const id of ids) {
      try {
        await deleteFileWith(client, scope, id);
      } catch (error) {
        if (!(error instanceof AppError && error.kind === "notFound")) throw error;
      }
    }
    // Counted by what is gone, not by calls: deleting a photo also removes its thumbnail's record
    // (the processors run again), which may be one of the matches too.
    return before - (await present()).length;
  });
}
