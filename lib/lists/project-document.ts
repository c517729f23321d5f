// Projection lives with the query language; this path is kept for the list helpers' callers.
export { projectDocument } from "../query/project-document";
