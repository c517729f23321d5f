import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { can, type Target } from "./can";
import { coversPermission, normalizePermission } from "./permission";
import type { Action, Principal } from "./principal";

const actions: Action[] = ["read", "write", "update", "delete"];
const token = (permission: unknown): Principal => ({
  kind: "token",
  tokenId: "t",
  allow: normalizePermission(permission),
});
const user = (role: "owner" | "admin" | "member"): Principal => ({ kind: "user", userId: "u", email: "u@x.io", role });

const posts: Target = { collection: "posts" };
const post1: Target = { collection: "posts", documentId: "p1" };
const post2: Target = { collection: "posts", documentId: "p2" };
const postsDefinition: Target = { collection: "posts", manage: true };
const tokens: Target = { collection: "_tokens" };
const other: Target = { collection: "secrets", documentId: "s1" };
const allTargets = [posts, post1, post2, postsDefinition, tokens, other];

// Each row: a permission form, then for every action the targets it must reach (others must not).
const table: Array<{ name: string; principal: Principal; grants: Partial<Record<Action, Target[]>> }> = [
  {
    name: "all",
    principal: token({ allow: { all: true } }),
    grants: Object.fromEntries(actions.map((a) => [a, allTargets])),
  },
  {
    name: "collection name in read",
    principal: token({ allow: { read: ["posts"] } }),
    grants: { read: [posts, post1, post2, postsDefinition] },
  },
  {
    name: "create is an alias of write",
    principal: token({ allow: { create: ["posts"] } }),
    grants: { write: [posts, post1, post2, postsDefinition] },
  },
  {
    name: "collection entity in update",
    principal: token({ allow: { update: [{ what: "collection", where: "posts" }] } }),
    grants: { update: [posts, post1, post2, postsDefinition] },
  },
  {
    name: "document entity in delete",
    principal: token({ allow: { delete: [{ what: "document", where: "posts", what_id: "p1" }] } }),
    grants: { delete: [post1] },
  },
  {
    name: "legacy flat form",
    principal: token({ read: ["posts"], delete: ["posts"] }),
    grants: { read: [posts, post1, post2, postsDefinition], delete: [posts, post1, post2, postsDefinition] },
  },
  {
    name: "tokens collection named explicitly",
    principal: token({ allow: { read: ["_tokens"] } }),
    grants: { read: [tokens] },
  },
  {
    name: "the original service's {what} alone: every collection, system ones too, as if each were named",
    principal: token({ allow: { read: [{ what: "document" }], update: [{ what: "collection" }] } }),
    grants: { read: allTargets, update: allTargets },
  },
  {
    name: "the original service's {what: collection, what_id}: that collection",
    principal: token({ allow: { delete: [{ what: "collection", what_id: "posts" }] } }),
    grants: { delete: [posts, post1, post2, postsDefinition] },
  },
  { name: "nothing", principal: token({ allow: {} }), grants: {} },
  {
    name: "owner",
    principal: user("owner"),
    grants: Object.fromEntries(actions.map((a) => [a, allTargets])),
  },
  {
    name: "admin",
    principal: user("admin"),
    grants: Object.fromEntries(actions.map((a) => [a, allTargets])),
  },
  {
    name: "member",
    principal: user("member"),
    grants: {
      read: [posts, post1, post2, postsDefinition, tokens, other],
      write: [posts, post1, post2, other],
      update: [posts, post1, post2, other],
      delete: [posts, post1, post2, other],
    },
  },
];


describe("can()", () => {
  for (const row of table) {
    for (const action of actions) {
      it(`${row.name}: ${action}`, () => {
        const granted = row.grants[action] ?? [];
        for (const target of allTargets) {
          expect(can(row.principal, action, target), JSON.stringify(target)).toBe(granted.includes(target));
        }
      });
    }
  }
});

describe("normalizePermission()", () => {
  it("stores the allow form with every key", () => {
    expect(normalizePermission({ read: ["a"], create: ["b"] })).toEqual({
      all: false,
      read: ["a"],
      write: ["b"],
      update: [],
      delete: [],
    });
  });

  it.each([
    [{ allow: { all: "yes" } }],
    [{ allow: { read: "posts" } }],
    [{ allow: { fly: [] } }],
    [{ allow: { read: [{ what: "document", what_id: "d1" }] } }],
    [{ allow: { read: [{ what: "collection", where: 5 }] } }],
    [{ allow: { read: [{ what: "row", where: "posts" }] } }],
    ["all"],
  ])("refuses %j with a validation error", (input) => {
    expect(() => normalizePermission(input)).toThrow(AppError);
  });

  it("a holder of every collection covers any grant; a named one never covers every collection", () => {
    const every = normalizePermission({ allow: { read: [{ what: "document" }] } });
    expect(coversPermission(every, normalizePermission({ allow: { read: ["posts", { what: "document", where: "x", what_id: "1" }, { what: "collection" }] } }))).toBe(true);
    expect(coversPermission(normalizePermission({ allow: { read: ["posts"] } }), every)).toBe(false);
    expect(coversPermission(normalizePermission({ allow: { read: ["posts"] } }), normalizePermission({ allow: { read: [{ what: "collection", what_id: "posts" }] } }))).toBe(true);
  });

  it("{what, where} without what_id is kept and covers the whole collection", () => {
    const allow = normalizePermission({ allow: { read: [{ what: "document", where: "posts" }] } });
    expect(allow.read).toEqual([{ what: "document", where: "posts" }]);
    const principal = { kind: "token" as const, tokenId: "t", allow };
    expect(can(principal, "read", { collection: "posts" })).toBe(true);
    expect(can(principal, "read", { collection: "posts", documentId: "any" })).toBe(true);
    expect(can(principal, "read", { collection: "other" })).toBe(false);
    expect(can(principal, "write", { collection: "posts" })).toBe(false);
  });
});
