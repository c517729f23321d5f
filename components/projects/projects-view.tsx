"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiError, describeError } from "@/lib/client/api";
import { formatBytes, PROJECT_ID_PATTERN, slugify } from "@/lib/client/format";
import { useCreateProject, useProjects } from "@/lib/client/hooks";
import { Alert, Badge, Button, Card, TextField } from "@/components/ui";

/** The projects list and the create form, with the owner limit shown before it is reached. */
export function ProjectsView({ ownedCount, limit, roles = {} }: { ownedCount: number; limit: number; roles?: Record<string, string> }) {
  const projects = useProjects();
  const atLimit = ownedCount >= limit;
  return (
    <main className="mx-auto max-w-6xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div>
          <h1 className="text-2xl font-semibold text-slate-900">Projects</h1>
          <p className="mt-1 text-sm text-slate-600" data-testid="project-quota">
            You own {ownedCount} of {limit} projects.
          </p>
        </div>
      </div>

      <div className="mt-6 grid items-start gap-6 lg:grid-cols-[1fr_22rem] [&>*]:min-w-0">
        <section aria-labelledby="project-list-heading">
          <h2 id="project-list-heading" className="sr-only">
            Your projects
          </h2>
          {projects.isPending && <p className="text-sm text-slate-500">Loading projects...</p>}
          {projects.isError && <Alert>{describeError(projects.error)}</Alert>}
          {projects.data && projects.data.items.length === 0 && (
            <div className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600">
              No projects yet. Create your first one to get an API endpoint for documents and files.
            </div>
          )}
          {projects.data && projects.data.items.length > 0 && (
            <ul className="grid gap-3 sm:grid-cols-2">
              {projects.data.items.map((project) => (
                <li key={project._id}>
                  <Link
                    href={`/projects/${project._id}`}
                    className="block rounded-lg border border-slate-200 bg-white p-4 shadow-sm transition hover:border-indigo-300 hover:shadow focus-visible:outline-2 focus-visible:outline-indigo-600"
                  >
                    <div className="flex items-start justify-between gap-2">
                      <div className="min-w-0">
                        <p className="truncate font-medium text-slate-900">{project.name}</p>
                        <p className="truncate font-mono text-xs text-slate-500">{project._id}</p>
                      </div>
                      <div className="flex shrink-0 flex-wrap justify-end gap-1">
                        {roles[project._id] && <Badge tone={roles[project._id] === "owner" ? "success" : "neutral"}>{`Your role: ${roles[project._id]}`}</Badge>}
                        {project.status.is_active ? <Badge tone="success">Active</Badge> : <Badge tone="danger">Inactive</Badge>}
                      </div>
                    </div>
                    <dl className="mt-3 grid grid-cols-2 gap-2 text-xs text-slate-600">
                      <div>
                        <dt className="text-slate-500">Data</dt>
                        <dd className="font-medium text-slate-800">{formatBytes(project.status.data_size)}</dd>
                      </div>
                      <div>
                        <dt className="text-slate-500">Files</dt>
                        <dd className="font-medium text-slate-800">{formatBytes(project.status.files_size)}</dd>
                      </div>
                    </dl>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </section>

        <CreateProjectCard ownedCount={ownedCount} limit={limit} atLimit={atLimit} />
      </div>
    </main>
  );
}

function CreateProjectCard({ ownedCount, limit, atLimit }: { ownedCount: number; limit: number; atLimit: boolean }) {
  const router = useRouter();
  const create = useCreateProject();
  const [name, setName] = useState("");
  const [id, setId] = useState("");
  const [idEdited, setIdEdited] = useState(false);
  const projectId = idEdited ? id : slugify(name);
  const idValid = new RegExp(PROJECT_ID_PATTERN).test(projectId);
  const error = create.error instanceof ApiError ? create.error : undefined;
  // A taken id (409) is about the Project ID: said there, not above the form.
  const idTaken = error?.status === 409 ? error.message : undefined;

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (!idValid) return;
    try {
      const project = await create.mutateAsync({ _id: projectId, name: name.trim() || projectId });
      router.push(`/projects/${project._id}`);
      router.refresh();
    } catch {
      // Shown from create.error below.
    }
  }

  return (
    <Card
      title="New project"
      description={
        atLimit
          ? undefined
          : `${limit - ownedCount} of ${limit} left. Each project has its own API host, collections, files and tokens.`
      }
    >
      {atLimit ? (
        <Alert tone="warning">
          You own {ownedCount} of {limit} projects, the most an account can own. Delete a project to create another.
        </Alert>
      ) : (
        <form onSubmit={submit} className="space-y-4" noValidate>
          {create.error && !(error && error.errors.length) && !idTaken && <Alert>{describeError(create.error)}</Alert>}
          <TextField label="Name" name="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} error={error?.errorFor("name")} />
          <TextField
            label="Project ID"
            name="id"
            required
            pattern={PROJECT_ID_PATTERN}
            value={projectId}
            onChange={(e) => {
              setIdEdited(true);
              setId(e.target.value.toLowerCase());
              // The answer was about the id as it was: a new one has not been refused.
              if (create.error) create.reset();
            }}
            hint="Lowercase letters, digits and dashes, starting with a letter. It names the project in API addresses and cannot change."
            error={
              projectId && !idValid ? "Use 2 to 63 lowercase letters, digits and dashes, starting with a letter." : (idTaken ?? error?.errorFor("_id"))
            }
          />
          <Button type="submit" className="w-full" disabled={create.isPending || !idValid}>
            {create.isPending ? "Creating..." : "Create project"}
          </Button>
        </form>
      )}
    </Card>
  );
}
