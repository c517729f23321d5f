import { forbidden } from "../errors";

/** The answer of every write a read-only system collection refuses (CONTRACT §10): 403. */
export function readOnlyCollection(): never {
  throw forbidden("System collection is read-only");
}
