import type pg from "pg";
import { transaction } from "../db/query";
import { lockProjectRow } from "../projects/counters";
import type { ProjectScope } from "../collections/collection";
import { hasProcessors } from "../processors/process-document";
import { withProcessorSlot } from "../processors/processor-slots";

/**
 * The transaction of a document write.
 * - With processors, it waits for a processor slot first (lib/processors/processor-slots.ts).
 * - In a project with a size limit, it locks the project's row first. Its limit check takes that
 *   lock anyway, but late, after the document's row: a collection delete holding the collection
 *   and waiting for that document row, while a creator held the project's row and waited for the
 *   collection (its foreign key), was a deadlock (503). Every transaction now locks the project
 *   before any document or collection row (lib/collections/delete-collection.ts does too).
 */
export function documentWriteTransaction<T>(scope: ProjectScope, schema: Record<string, unknown> | null, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const limited = scope.dataSizeLimit > 0 || (scope.filesSizeLimit ?? 0) > 0;
  const run = () =>
    transaction(async (client) => {
      if (limited) await lockProjectRow(client, scope.projectId);
      return work(client);
    });
  return hasProcessors(schema) ? withProcessorSlot(scope.projectId, run) : run();
}

