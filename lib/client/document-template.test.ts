import { describe, expect, it } from "vitest";
import { template } from "./document-template";

describe("template", () => {
  it("starts each property empty in position order, leaving out unique, file and enum-without-empty properties", () => {
    const schema = {
      type: "object",
      properties: {
        genre: { type: "string", enum: ["sf", "fantasy"] },
        mood: { type: "string", enum: ["", "dark"] },
        title: { type: "string", position: 1 },
        year: { type: "integer", position: 2 },
        isbn: { type: "string" },
        cover: { type: "file" },
      },
    };
    const text = template({ schema, indexes: [{ type: "simple", property: "isbn", unique: true }] } as never);
    expect(JSON.parse(text)).toEqual({ title: "", year: 0, mood: "" });
    expect(Object.keys(JSON.parse(text))).toEqual(["title", "year", "mood"]);
  });
});
