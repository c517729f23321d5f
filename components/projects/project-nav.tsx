"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useProject } from "@/lib/client/hooks";
import { Badge } from "@/components/ui";

const SECTIONS = [
  { href: "", label: "Overview" },
  { href: "/collections", label: "Collections" },
  { href: "/files", label: "Files" },
  { href: "/hooks", label: "Hooks" },
  { href: "/tokens", label: "Tokens" },
  { href: "/members", label: "Members" },
  { href: "/usage", label: "Usage & logs" },
  { href: "/settings", label: "Settings" },
];

/** The project's title and its sections as tabs (scrolling sideways on a phone). */
export function ProjectNav({ projectId, projectName, isActive }: { projectId: string; projectName: string; isActive: boolean }) {
  const pathname = usePathname();
  // Live name and status after an edit on the settings page; the server's values until then.
  const project = useProject(projectId).data;
  const name = project?.name ?? projectName;
  const active = project?.status.is_active ?? isActive;
  const base = `/projects/${projectId}`;
  return (
    <div>
      <nav aria-label="Breadcrumb" className="text-sm text-slate-500">
        <Link href="/projects" className="hover:text-slate-800 hover:underline">
          Projects
        </Link>
        <span aria-hidden> / </span>
        <span className="font-mono">{projectId}</span>
      </nav>
      <div className="mt-1 flex flex-wrap items-center gap-3">
        <h1 className="min-w-0 truncate text-2xl font-semibold text-slate-900">{name}</h1>
        {active ? <Badge tone="success">Active</Badge> : <Badge tone="danger">Inactive</Badge>}
      </div>
      <nav aria-label="Project sections" className="-mx-4 mt-4 overflow-x-auto border-b border-slate-200 px-4">
        <ul className="flex min-w-max gap-1">
          {SECTIONS.map((section) => {
            const href = base + section.href;
            const current = section.href === "" ? pathname === base : pathname.startsWith(href);
            return (
              <li key={section.label}>
                <Link
                  href={href}
                  aria-current={current ? "page" : undefined}
                  className={`-mb-px inline-block border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                    current ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                  }`}
                >
                  {section.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
    </div>
  );
}
