import { describe, expect, it } from "vitest";
import { renamedPath, renameSchemaProperty } from "./rename-property";

describe("renaming a schema property", () => {
  it("renames the key in place and follows processor inputs (context included) and the required list", () => {
    const schema = {
      type: "object",
      required: ["summary", "title"],
      properties: {
        title: { type: "string" },
        summary: { type: "object", properties: { text: { type: "string" } } },
        html: { type: "string", processors: [{ name: "markdown", in: { text: { property: "summary.text" } } }] },
        page: {
          type: "string",
          processors: [{ name: "template", in: { template_string: { value: "{{s}}" }, context: { s: { property: "summary" }, t: { property: "title" }, v: { value: "summary" } } } }],
        },
        summary_copy: { type: "string", processors: [{ name: "md5", in: { text: { property: "summaryx" } } }] },
      },
    };
    const renamed = renameSchemaProperty(schema, "summary", "body");
    expect(Object.keys(renamed.properties as object)).toEqual(["title", "body", "html", "page", "summary_copy"]);
    expect(renamed.required).toEqual(["body", "title"]);
    const properties = renamed.properties as Record<string, any>;
    expect(properties.html.processors[0].in.text).toEqual({ property: "body.text" });
    expect(properties.page.processors[0].in.context).toEqual({ s: { property: "body" }, t: { property: "title" }, v: { value: "summary" } });
    // Only that property: a name that merely starts with it stays.
    expect(properties.summary_copy.processors[0].in.text).toEqual({ property: "summaryx" });
  });

  it("renames index paths that start with the property", () => {
    expect(renamedPath("isbn", "isbn", "code")).toBe("code");
    expect(renamedPath("isbn.part", "isbn", "code")).toBe("code.part");
    expect(renamedPath("isbn2", "isbn", "code")).toBe("isbn2");
  });
});
