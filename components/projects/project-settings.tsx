"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { ApiError, describeError } from "@/lib/client/api";
import { formatBytes, joinLimit, SIZE_UNITS, splitLimit, type SizeUnit } from "@/lib/client/format";
import { useDeleteProject, useMembers, useProject, useTransferProject, useUpdateProject } from "@/lib/client/hooks";
import { isPendingMember, type Project } from "@/lib/client/types";
import { Alert, Button, Card, ConfirmDialog, inputClass, TextField, TypedConfirmation } from "@/components/ui";

const DURATION = /^(?:0?|\d+(?:ms|s|m|h|d))$/;

/** Name and settings of a project, and its active switch (behind a confirmation). */
export function ProjectSettingsView({ projectId, canEdit, isOwner = false }: { projectId: string; canEdit: boolean; isOwner?: boolean }) {
  const { data: project, error, isPending } = useProject(projectId);
  if (isPending) return <p className="text-sm text-slate-500">Loading...</p>;
  if (error || !project) return <Alert>{describeError(error)}</Alert>;
  return (
    <div className="space-y-6">
      {!canEdit && <Alert tone="info">Only the project&apos;s owner or an admin can change its settings.</Alert>}
      <SettingsForm key={project._id} project={project} canEdit={canEdit} />
      <StatusCard project={project} canEdit={canEdit} />
      {isOwner && <TransferProject projectId={project._id} />}
      {isOwner && <DeleteProject projectId={project._id} />}
    </div>
  );
}

function SettingsForm({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const update = useUpdateProject(project._id);
  // What the form was opened with: only fields changed from it are sent (the project may have been
  // changed elsewhere since, and `project` refreshes under the form).
  const [opened, setOpened] = useState(project);
  const [name, setName] = useState(project.name);
  const [debug, setDebug] = useState(project.settings.debug);
  const [deleteFiles, setDeleteFiles] = useState(project.settings.delete_files);
  const [filesLimit, setFilesLimit] = useState(splitLimit(project.settings.files_size_limit));
  const [dataLimit, setDataLimit] = useState(splitLimit(project.settings.data_size_limit));
  const [durations, setDurations] = useState(() => durationsOf(project));
  /** The form as `saved` holds it, and compared with it from now on. */
  const show = (saved: Project) => {
    setOpened(saved);
    setName(saved.name);
    setDebug(saved.settings.debug);
    setDeleteFiles(saved.settings.delete_files);
    setFilesLimit(splitLimit(saved.settings.files_size_limit));
    setDataLimit(splitLimit(saved.settings.data_size_limit));
    setDurations(durationsOf(saved));
  };
  const [saved, setSaved] = useState(false);
  const apiError = update.error instanceof ApiError ? update.error : undefined;

  const filesBytes = joinLimit(filesLimit.amount, filesLimit.unit);
  const dataBytes = joinLimit(dataLimit.amount, dataLimit.unit);
  const durationsValid = Object.values(durations).every((value) => DURATION.test(value.trim()));
  const valid = name.trim() !== "" && filesBytes !== undefined && dataBytes !== undefined && durationsValid;
  const duration = (value: string) => (value.trim() === "0" ? "" : value.trim());

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (!valid) return;
    setSaved(false);
    try {
      // Only what the user changed: a setting changed meanwhile elsewhere (or through the API)
      // is not written back with the value this form was opened with.
      const wanted = {
        debug,
        delete_files: deleteFiles,
        files_size_limit: filesBytes,
        data_size_limit: dataBytes,
        ...Object.fromEntries(DURATION_SETTINGS.map(({ name }) => [name, duration(durations[name])])),
      };
      const settings = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => opened.settings[key as keyof typeof wanted] !== value));
      const renamed = name.trim() !== opened.name;
      const after = await update.mutateAsync({ ...(renamed ? { name: name.trim() } : {}), ...(Object.keys(settings).length ? { settings } : {}) });
      // Others' changes included.
      show(after);
      setSaved(true);
    } catch {
      // Shown from update.error.
    }
  }

  return (
    <Card title="Settings">
      <form onSubmit={submit} className="space-y-5" noValidate>
        <fieldset disabled={!canEdit} className="min-w-0 space-y-5">
          {update.error && <Alert>{describeError(update.error)}</Alert>}
          {saved && !update.isPending && <Alert tone="success">Settings saved.</Alert>}
          <TextField
            label="Name"
            name="name"
            value={name}
            maxLength={200}
            onChange={(e) => setName(e.target.value)}
            error={name.trim() === "" ? "A project needs a name." : apiError?.errorFor("name")}
          />
          <div className="grid gap-5 sm:grid-cols-2">
            <LimitField
              label="Files size limit"
              value={filesLimit}
              onChange={setFilesLimit}
              invalid={filesBytes === undefined}
              error={apiError?.errorFor("settings.files_size_limit")}
            />
            <LimitField
              label="Data size limit"
              value={dataLimit}
              onChange={setDataLimit}
              invalid={dataBytes === undefined}
              error={apiError?.errorFor("settings.data_size_limit")}
            />
          </div>
          <div className="grid gap-5 sm:grid-cols-3">
            {DURATION_SETTINGS.map((setting) => (
              <DurationField
                key={setting.name}
                {...setting}
                value={durations[setting.name]}
                onChange={(value) => setDurations((current) => ({ ...current, [setting.name]: value }))}
                serverError={apiError?.errorFor(`settings.${setting.name}`)}
              />
            ))}
          </div>
          <Checkbox
            label="Debug log"
            description="Record every API call (request and response, secrets redacted) in the _debug collection."
            checked={debug}
            onChange={setDebug}
          />
          <Checkbox
            label="Delete files with their documents"
            description="When a document is deleted, its files go too."
            checked={deleteFiles}
            onChange={setDeleteFiles}
          />
        </fieldset>
        {canEdit && (
          <div className="flex justify-end">
            <Button type="submit" disabled={!valid || update.isPending}>
              {update.isPending ? "Saving..." : "Save settings"}
            </Button>
          </div>
        )}
      </form>
    </Card>
  );
}

type DurationSetting = "orphan_files_ttl" | "events_ttl" | "hooks_history_ttl";

function durationsOf(project: Project): Record<DurationSetting, string> {
  return Object.fromEntries(DURATION_SETTINGS.map(({ name }) => [name, project.settings[name]])) as Record<DurationSetting, string>;
}

const DURATION_SETTINGS: { name: DurationSetting; label: string; placeholder: string; hint: string }[] = [
  {
    name: "orphan_files_ttl",
    label: "Orphan files TTL",
    placeholder: "168h",
    hint: 'Files whose document is gone are removed after this long: a number with ms, s, m, h or d ("168h" is a week). Empty: never.',
  },
  { name: "events_ttl", label: "Change feed replay", placeholder: "24h", hint: "How far back a client reconnecting to the change feed can resume (Last-Event-ID). Empty: kept for ever." },
  { name: "hooks_history_ttl", label: "Hooks history kept", placeholder: "720h", hint: "How long finished deliveries stay in the hooks history. Empty: kept for ever." },
];

/** A duration setting (`"168h"`, `"30m"`, `""` for never): checked as typed, the server's error after. */
function DurationField({
  label,
  name,
  value,
  placeholder,
  onChange,
  hint,
  serverError,
}: {
  label: string;
  name: string;
  value: string;
  placeholder: string;
  onChange: (value: string) => void;
  hint: string;
  serverError?: string;
}) {
  const valid = DURATION.test(value.trim());
  return (
    <TextField
      label={label}
      name={name}
      value={value}
      placeholder={placeholder}
      onChange={(e) => onChange(e.target.value)}
      hint={hint}
      error={valid ? serverError : `Use a duration like "${placeholder}", "30m" or "7d", or leave it empty.`}
    />
  );
}

function LimitField({
  label,
  value,
  onChange,
  invalid,
  error,
}: {
  label: string;
  value: { amount: string; unit: SizeUnit };
  onChange: (value: { amount: string; unit: SizeUnit }) => void;
  invalid: boolean;
  error?: string;
}) {
  const id = useId();
  const message = invalid ? "Enter a number, 0 for no limit." : error;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <div className="mt-1 flex gap-2">
        <input
          id={id}
          inputMode="decimal"
          value={value.amount}
          onChange={(e) => onChange({ ...value, amount: e.target.value })}
          aria-invalid={message ? true : undefined}
          aria-describedby={`${id}-hint`}
          className={inputClass}
        />
        <select
          aria-label={`${label} unit`}
          value={value.unit}
          onChange={(e) => onChange({ ...value, unit: e.target.value as SizeUnit })}
          className="rounded-md border border-slate-300 bg-white px-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30"
        >
          {SIZE_UNITS.map((unit) => (
            <option key={unit.label}>{unit.label}</option>
          ))}
        </select>
      </div>
      <p id={`${id}-hint`} className={`mt-1 text-xs ${message ? "text-red-600" : "text-slate-500"}`}>
        {message ?? "0 means no limit. Writes past a limit are refused (402)."}
      </p>
    </div>
  );
}

function Checkbox({ label, description, checked, onChange }: { label: string; description: string; checked: boolean; onChange: (value: boolean) => void }) {
  const id = useId();
  return (
    <div className="flex items-start gap-3">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={`${id}-description`}
        className="mt-0.5 h-4 w-4 rounded border-slate-300 accent-indigo-600"
      />
      <div>
        <label htmlFor={id} className="text-sm font-medium text-slate-700">
          {label}
        </label>
        <p id={`${id}-description`} className="text-xs text-slate-500">
          {description}
        </p>
      </div>
    </div>
  );
}

function StatusCard({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const update = useUpdateProject(project._id);
  const [confirming, setConfirming] = useState(false);
  const active = project.status.is_active;

  async function toggle() {
    try {
      await update.mutateAsync({ status: { is_active: !active } });
      setConfirming(false);
    } catch {
      // Shown below; the dialog stays open so the user sees what happened.
    }
  }

  return (
    <Card title="Status">
      <dl className="grid gap-4 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-slate-500">Data size</dt>
          <dd className="mt-0.5 text-lg font-semibold text-slate-900" data-testid="settings-data-size">
            {formatBytes(project.status.data_size)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Files size</dt>
          <dd className="mt-0.5 text-lg font-semibold text-slate-900" data-testid="settings-files-size">
            {formatBytes(project.status.files_size)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">API access</dt>
          <dd className="mt-1 flex items-center gap-3">
            <button
              type="button"
              role="switch"
              aria-checked={active}
              aria-label="Project active"
              disabled={!canEdit}
              onClick={() => setConfirming(true)}
              className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-50 ${
                active ? "bg-emerald-500" : "bg-slate-300"
              }`}
            >
              <span className={`inline-block h-5 w-5 rounded-full bg-white shadow transition ${active ? "translate-x-5" : "translate-x-0.5"}`} />
            </button>
            <span className="text-slate-700">{active ? "Active" : "Inactive"}</span>
          </dd>
        </div>
      </dl>
      <ConfirmDialog
        open={confirming}
        title={active ? "Deactivate this project?" : "Activate this project?"}
        confirmLabel={active ? "Deactivate" : "Activate"}
        tone={active ? "danger" : "primary"}
        busy={update.isPending}
        error={update.error}
        onConfirm={() => void toggle()}
        onCancel={() => {
          update.reset();
          setConfirming(false);
        }}
      >
        {active ? (
          <p>
            Every API call to <span className="font-mono">{project._id}</span> will be refused (403), for tokens and members alike,
            until you activate it again. Nothing is deleted.
          </p>
        ) : (
          <p>
            The API of <span className="font-mono">{project._id}</span> will answer again.
          </p>
        )}
      </ConfirmDialog>
    </Card>
  );
}

/** Deleting a project takes its data and files: only after its id is typed. */
function DeleteProject({ projectId }: { projectId: string }) {
  const remove = useDeleteProject(projectId);
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const close = () => {
    setOpen(false);
    setTyped("");
    remove.reset();
  };
  const confirm = () => typed === projectId && !remove.isPending && remove.mutate(undefined, { onSuccess: () => router.push("/projects") });
  return (
    <section className="rounded-lg border border-red-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 className="text-base font-semibold text-red-800">Delete this project</h2>
      <p className="mt-1 text-sm text-slate-600">Its collections, documents, files, tokens and members go with it. This cannot be undone.</p>
      <Button variant="danger" className="mt-4" onClick={() => setOpen(true)}>
        Delete project
      </Button>
      <ConfirmDialog
        open={open}
        title={`Delete the project ${projectId}?`}
        confirmLabel="Delete project"
        busy={remove.isPending}
        error={remove.error}
        confirmDisabled={typed !== projectId}
        onCancel={close}
        onConfirm={confirm}
      >
        <TypedConfirmation id="confirm-project-id" expected={projectId} typed={typed} onTyped={setTyped} onConfirm={confirm} />
      </ConfirmDialog>
    </section>
  );
}

/** Hands the project to another active member (PATCH {owner}); you stay on as an admin. */
function TransferProject({ projectId }: { projectId: string }) {
  const members = useMembers(projectId);
  const transfer = useTransferProject(projectId);
  const router = useRouter();
  const [to, setTo] = useState("");
  const [open, setOpen] = useState(false);
  const candidates = (members.data?.items ?? []).filter((m) => m.role !== "owner" && m.is_active && !isPendingMember(m));
  return (
    <Card title="Transfer ownership" description="The new owner must be an active member. You stay in the project as an admin.">
      {candidates.length === 0 ? (
        <p className="text-sm text-slate-500">Invite someone on the Members page first: only members who have joined can become the owner.</p>
      ) : (
        <div className="flex flex-wrap items-end gap-2">
          <label className="min-w-56 flex-1 text-sm text-slate-700">
            New owner
            <select value={to} onChange={(e) => setTo(e.target.value)} className={`mt-1 ${inputClass}`}>
              <option value="">Choose a member</option>
              {candidates.map((m) => (
                <option key={m._id} value={m._id}>
                  {m._id} ({m.role})
                </option>
              ))}
            </select>
          </label>
          <Button variant="secondary" disabled={!to} onClick={() => setOpen(true)}>
            Transfer
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={open}
        title={`Make ${to} the owner?`}
        confirmLabel="Transfer ownership"
        busy={transfer.isPending}
        error={transfer.error}
        onCancel={() => {
          transfer.reset();
          setOpen(false);
        }}
        onConfirm={() =>
          transfer.mutate(to, {
            onSuccess: () => {
              setOpen(false);
              router.refresh();
            },
          })
        }
      >
        <p>Only the owner can delete the project or transfer it again. You become an admin.</p>
      </ConfirmDialog>
    </Card>
  );
}
