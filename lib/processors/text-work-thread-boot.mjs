// The text thread's first module, plain JavaScript so Node loads it without a loader: it
// registers tsx in the thread (loaders are per thread) and then loads the TypeScript entry.
import { register } from "tsx/esm/api";

register();
await import("./text-work-thread.ts");
