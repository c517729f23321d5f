"use client";

import Link from "next/link";
import { ApiError } from "@/lib/client/api";
import { useCollection } from "@/lib/client/hooks";
import { Alert } from "@/components/ui";

/**
 * A collection's views, or, for a collection that does not exist (a stale link, one deleted
 * meanwhile), one plain message instead of a list, filters and editors that can only fail.
 */
export function CollectionGate({ projectId, collectionId, children }: { projectId: string; collectionId: string; children: React.ReactNode }) {
  const collection = useCollection(projectId, collectionId);
  if (collection.error instanceof ApiError && collection.error.status === 404)
    return (
      <Alert>
        This collection does not exist (any more).{" "}
        <Link href={`/projects/${projectId}/collections`} className="underline">
          Back to the collections
        </Link>
      </Alert>
    );
  return <>{children}</>;
}
