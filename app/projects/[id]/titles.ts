import type { Metadata } from "next";
import { cache } from "react";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";

/** The project's name for page titles; one lookup per request however many callers ask. */
const projectName = cache(async (id: string): Promise<string> => {
  const user = await requireUser();
  const access = await getUserProject(user._id, id).catch(() => undefined);
  return access?.project.name || id;
});

/**
 * A page title naming where the user is, most specific first ("books · Documents · Library"),
 * so tabs and history entries can be told apart. The root layout appends "· Arca".
 */
export async function pageTitle(params: Promise<{ id: string; collection?: string }>, section: string): Promise<Metadata> {
  const { id, collection } = await params;
  const parts = [collection ? decodeURIComponent(collection) : undefined, section, await projectName(id)].filter(Boolean);
  return { title: parts.join(" · ") };
}
