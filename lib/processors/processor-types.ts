import type { Readable } from "node:stream";

/**
 * The shapes shared by the processors (CONTRACT §7): how an argument is written in a schema,
 * what a kind declares, and the values that flow between the processors of one property.
 */

/** One `in` argument as parsed from the schema: a property path, a literal, or (for `context`) an object of arguments. */
export type ArgumentSpec = { property: string[] } | { value: unknown } | { object: Record<string, ArgumentSpec> };

export interface ProcessorSpec {
  name: string;
  in: Record<string, ArgumentSpec>;
}

/** A file a processor reads: an uploaded/stored file of the document, or one produced earlier in the chain. */
export interface FileInput {
  name: string;
  contentType: string;
  size: number;
  /** The bytes as a stream (a stored blob) or at once (an earlier processor's output). */
  open(): Promise<Readable>;
  bytes(): Promise<Buffer>;
}

/** What a file-producing processor returns; stored as a `_files` record of the document at the end of the chain. */
export class ProducedFile implements FileInput {
  constructor(
    readonly data: Buffer,
    readonly name: string,
    readonly contentType: string,
  ) {}
  get size(): number {
    return this.data.length;
  }
  async open(): Promise<Readable> {
    const { Readable } = await import("node:stream");
    return Readable.from([this.data]);
  }
  async bytes(): Promise<Buffer> {
    return this.data;
  }
}

/** What a processor's `run` is given: its arguments resolved, and helpers that name the property in errors. */
export interface ProcessorCall {
  /** The kind, e.g. `resize`. */
  name: string;
  /** The dotted path of the property carrying the processor. */
  property: string;
  /** Resolved arguments; the source argument holds the property's current value when the schema did not set it. */
  args: Record<string, unknown>;
  /** Reads a file argument (a file record of this document, or an earlier output); 422 when it is not a file. */
  file(arg: string): Promise<FileInput>;
  /** A string argument of at most 1 MiB (422 otherwise); `undefined` when absent and not `required`. */
  text(arg: string, options?: { required?: boolean }): string | undefined;
  /** A 422 naming the property. */
  invalid(message: string): Error;
  /** A 502 naming the processor (vendor down, timeout, bad answer). */
  vendorFailed(reason: string): Error;
  /** Aborted when the processor's time is up (ARCA_PROCESSOR_TIMEOUT_MS). */
  signal: AbortSignal;
}

export type ProcessorOutput = "string" | "number" | "object" | "file";

export interface ProcessorKind {
  /** Argument names this kind accepts. */
  args: string[];
  /** Arguments the schema must give. */
  required?: string[];
  /** What its value may be (besides null, when its input is missing): checked against the property's `type` at save. */
  output: ProcessorOutput[];
  /** The output for this spec's literal arguments, where they narrow `output` (`random_type: "integer"`). */
  outputOf?(spec: ProcessorSpec): ProcessorOutput[];
  /** The argument that defaults to the property's own value. */
  source?: string;
  /** Checks of the arguments' literal values when the schema is saved (422 message, or undefined). */
  check?(spec: ProcessorSpec): string | undefined;
  run(call: ProcessorCall): Promise<unknown>;
}
