import { headers } from "next/headers";
import { ProjectOverview } from "@/components/projects/project-overview";
import { config } from "@/lib/config";
import { pageTitle } from "./titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Overview");
}

export default async function ProjectPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const host = (await headers()).get("host") ?? "localhost";
  const port = /:(\d+)$/.exec(host)?.[1];
  const protocol = host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https";
  const apiUrl = `${protocol}://${id}.${config().baseDomain}${port ? `:${port}` : ""}/api/`;
  return <ProjectOverview projectId={id} apiUrl={apiUrl} />;
}
