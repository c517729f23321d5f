import { describe, expect, it } from "vitest";
import { template } from "./document-template";

describe("template", () => {
  it("starts each required property empty in position order; optional ones, numbers, datetimes, unique, file and enum-without-empty properties stay unset", () => {
    const schema = {
      type: "object",
      properties: {
        _id: { type: "string", required: true },
        genre: { type: "string", enum: ["sf", "fantasy"], required: true },
        mood: { type: "string", enum: ["", "dark"], required: true },
        tags: { type: "array", required: true },
        title: { type: "string", position: 1, required: true },
        done: { type: "boolean", position: 2, required: true },
        year: { type: "integer", position: 3, required: true, minimum: 1000 },
        starts: { type: "datetime", required: true },
        isbn: { type: "string", required: true },
        cover: { type: "file", required: true },
        subtitle: { type: "string" },
        pages: { type: "integer" },
        archived: { type: "boolean" },
        published: { type: "datetime" },
      },
    };
    const text = template({ schema, indexes: [{ type: "simple", property: "isbn", unique: true }] } as never);
    expect(JSON.parse(text)).toEqual({ title: "", done: false, mood: "", tags: [] });
    expect(Object.keys(JSON.parse(text))).toEqual(["title", "done", "mood", "tags"]);
  });
});
