import type { ListQuery } from "./list-query";

/** The list answer of every collection (CONTRACT §3), with absolute page links. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pages: number;
  per_page: number;
  links: { first: string; last: string; next: string; prev: string };
}

function setList(url: URL, name: string, values: string[] | undefined): void {
  if (values?.length) url.searchParams.set(name, values.join(","));
  else url.searchParams.delete(name);
}

export function pageOf<T>(items: T[], total: number, query: ListQuery, requestUrl: string): Page<T> {
  const pages = Math.max(1, Math.ceil(total / query.perPage));
  const link = (page: number) => {
    const url = new URL(requestUrl);
    url.searchParams.delete("token");
    // The query as answered, a body's (`X-Action: find`) filter and text included: following a
    // link with GET gives the next page of the same list.
    if (query.filter) url.searchParams.set("filter", JSON.stringify(query.filter));
    else url.searchParams.delete("filter");
    if (query.text) url.searchParams.set("text", query.text);
    else url.searchParams.delete("text");
    setList(url, "sort", query.sort.length ? query.sort.map((k) => `${k.descending ? "-" : ""}${k.path.join(".")}`) : undefined);
    setList(url, "fields", query.fields);
    setList(url, "fields_exclude", query.fieldsExclude);
    url.searchParams.set("page", String(page));
    url.searchParams.set("per_page", String(query.perPage));
    return url.toString();
  };
  return {
    items,
    total,
    page: query.page,
    pages,
    per_page: query.perPage,
    links: {
      first: link(1),
      last: link(pages),
      next: query.page < pages ? link(query.page + 1) : "",
      prev: query.page > 1 ? link(Math.min(query.page - 1, pages)) : "",
    },
  };
}
