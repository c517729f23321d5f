"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { describeError } from "@/lib/client/api";
import { useCollection, useDeleteCollection, useSaveCollection } from "@/lib/client/hooks";
import { Alert, Button, Card, ConfirmDialog, TypedConfirmation } from "@/components/ui";
import { CollectionForm } from "./collection-form";

/** Edit a collection's name, schema and indexes; delete it behind a typed confirmation. */
export function CollectionDefinitionView({ projectId, collectionId, canManage }: { projectId: string; collectionId: string; canManage: boolean }) {
  const collection = useCollection(projectId, collectionId);
  const save = useSaveCollection(projectId, collectionId);
  const [saved, setSaved] = useState(false);
  if (collection.isPending) return <p className="text-sm text-slate-500">Loading...</p>;
  if (collection.isError) return <Alert>{describeError(collection.error)}</Alert>;
  const definition = collection.data;
  return (
    <div className="space-y-6">
      <Card title="Schema & indexes" description={canManage ? "Changing the schema does not re-check the documents already stored." : undefined}>
        {!canManage && (
          <div className="mb-4">
            <Alert tone="info">Only the project&apos;s owner or an admin can change collection definitions.</Alert>
          </div>
        )}
        {saved && !save.isPending && !save.error && (
          <div className="mb-4">
            <Alert tone="success">Collection saved.</Alert>
          </div>
        )}
        <CollectionForm
          key={JSON.stringify([definition._id, definition.name, definition.description, definition.schema, definition.indexes])}
          initial={definition}
          busy={save.isPending}
          error={save.error}
          submitLabel="Save changes"
          disabled={!canManage || definition.is_system}
          onSubmit={({ name, description, schema, indexes }) => {
            setSaved(false);
            save.mutate({ name, description, schema, indexes }, { onSuccess: () => setSaved(true) });
          }}
        />
      </Card>
      {canManage && !definition.is_system && <DeleteCollection projectId={projectId} collectionId={collectionId} count={definition.documents_count} />}
    </div>
  );
}

function DeleteCollection({ projectId, collectionId, count }: { projectId: string; collectionId: string; count: number }) {
  const remove = useDeleteCollection(projectId);
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const close = () => {
    setOpen(false);
    setTyped("");
    remove.reset();
  };
  const confirm = () =>
    typed === collectionId && !remove.isPending && remove.mutate(collectionId, { onSuccess: () => router.push(`/projects/${projectId}/collections`) });
  return (
    <section className="rounded-lg border border-red-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 className="text-base font-semibold text-red-800">Delete this collection</h2>
      <p className="mt-1 text-sm text-slate-600">
        Its {count.toLocaleString("en")} {count === 1 ? "document goes" : "documents go"} with it, with their files and indexes. This cannot be undone.
      </p>
      <Button variant="danger" className="mt-4" onClick={() => setOpen(true)}>
        Delete collection
      </Button>
      <ConfirmDialog
        open={open}
        title={`Delete the collection ${collectionId}?`}
        confirmLabel="Delete collection"
        busy={remove.isPending}
        error={remove.error}
        confirmDisabled={typed !== collectionId}
        onCancel={close}
        onConfirm={confirm}
      >
        <p>
          Every document of <span className="font-mono font-medium">{collectionId}</span> and its files are deleted.
        </p>
        <TypedConfirmation id="confirm-collection-id" className="mt-3" expected={collectionId} typed={typed} onTyped={setTyped} onConfirm={confirm} />
      </ConfirmDialog>
    </section>
  );
}
