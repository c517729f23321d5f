export type { CompiledRegex, FilterNode, Json, OperatorNode } from "./types";
export { parseFilter, parseFilterParam } from "./parse-filter";
export { matchFilter } from "./match-filter";
export { compileFilter, indexDefinitions, pathExpression, valuesExpression, type IndexDefinition } from "./compile-filter";
export { projectDocument, type Projection } from "./project-document";
export { applyUpdate } from "./apply-update";
export { quoteLiteral, textArrayLiteral } from "./sql-literal";
