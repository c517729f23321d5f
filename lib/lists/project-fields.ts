import { projectDocument } from "../query/project-document";
import type { ListQuery } from "./list-query";

/** `fields` / `fields_exclude` on a single read (project, collection, document). */
export function projectFields<T extends object>(record: T, query: Pick<ListQuery, "fields" | "fieldsExclude">): Record<string, unknown> {
  if (!query.fields && !query.fieldsExclude) return record as Record<string, unknown>;
  return projectDocument(record as Parameters<typeof projectDocument>[0], { fields: query.fields, fields_exclude: query.fieldsExclude });
}
