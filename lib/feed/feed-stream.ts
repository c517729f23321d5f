import { gone } from "../errors";
import { comparePositions, type OutboxEvent, type OutboxPosition } from "../outbox/outbox-events";
import { eventPosition, joinFeed, latestProjectPosition, readProjectEvents } from "./feed-hub";

/**
 * One subscriber's Server-Sent Events stream (CONTRACT §13): `id`, `event`, `data` per change of
 * its collections that passes its filter and its credential's read permission, a `: ping` every
 * 15 s. It starts after `lastEventId` (410 when that event is older than the project's
 * `events_ttl` or gone), else at the newest event, whose id it sends first so that a client that
 * drops before any change can still resume. A subscriber that does not read (its queue past
 * `MAX_QUEUED_BYTES`) is dropped; it resumes from the last id it received.
 */
export interface FeedOptions {
  projectId: string;
  collections: string[];
  /** Whether the change passes the subscriber's filter. */
  matches(document: Record<string, unknown>): boolean;
  /** The credential's read permission on one document. */
  mayRead(collectionId: string, documentId: string): boolean;
  lastEventId: number | undefined;
  eventsTtlMs: number;
  onClose?(bytesSent: number): void;
}

const MAX_QUEUED_BYTES = 1 << 20;
const MAX_BUFFERED_EVENTS = 10_000;
const CATCH_UP_BATCH = 500;
export const PING_INTERVAL_MS = 15_000;
const encoder = new TextEncoder();

/** Opens the stream; throws (410) before anything is sent when the position has expired. */
export async function openFeedStream(options: FeedOptions): Promise<ReadableStream<Uint8Array>> {
  const collections = new Set(options.collections);
  let position: OutboxPosition;
  let first = "retry: 2000\n\n";
  let before = new Set<number>();
  if (options.lastEventId === undefined) {
    ({ position, before } = await latestProjectPosition(options.projectId, options.collections));
    // Always a position, so a client that drops before any change resumes without a gap (0: the
    // start of what is kept). Resuming may repeat events committed just before it subscribed.
    first = `retry: 2000\nid: ${position.id}\n\n`;
  } else if (options.lastEventId === 0) {
    position = { txid: "0", id: 0 };
  } else {
    const found = await eventPosition(options.projectId, options.lastEventId);
    if (!found || (options.eventsTtlMs > 0 && found.createdAt.getTime() < Date.now() - options.eventsTtlMs)) throw gone("Events expired");
    position = found;
  }

  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let caughtUp = false;
  let bytes = 0;
  const buffered: OutboxEvent[] = [];
  let leave = () => {};

  const send = (text: string) => {
    if (closed) return;
    const chunk = encoder.encode(text);
    bytes += chunk.byteLength;
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) close(); // too slow: dropped, it resumes
  };
  const emit = (event: OutboxEvent) => {
    if (comparePositions(event, position) <= 0) return; // seen during catch-up
    position = event;
    if (before.delete(event.id)) return; // committed before this subscriber came
    const document = event.document;
    if (!document || !collections.has(event.collectionId)) return;
    if (!options.mayRead(event.collectionId, event.documentId) || !options.matches(document)) return;
    send(`id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(document)}\n\n`);
  };
  const close = () => {
    if (closed) return;
    closed = true;
    leave();
    pings.delete(ping);
    try {
      controller.close();
    } catch {
      // already closed by the client
    }
    options.onClose?.(bytes);
  };
  const ping = () => send(": ping\n\n");

  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        closed = true;
        leave();
        pings.delete(ping);
        options.onClose?.(bytes);
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );

  const joined = await joinFeed({
    projectId: options.projectId,
    collections,
    deliver(event) {
      if (closed) return;
      if (caughtUp) return emit(event);
      buffered.push(event);
      if (buffered.length > MAX_BUFFERED_EVENTS) close();
    },
  });
  leave = joined.leave;
  pings.add(ping);
  send(first);
  void (async () => {
    try {
      for (;;) {
        const { events } = await readProjectEvents(options.projectId, options.collections, position, CATCH_UP_BATCH);
        if (closed) return;
        for (const event of events) emit(event);
        if (events.length < CATCH_UP_BATCH) break;
      }
      // Same turn as the last read's answer: the hub cannot interleave.
      for (const event of buffered.splice(0)) emit(event);
      caughtUp = true;
    } catch (error) {
      console.error(`feed: catching up: ${(error as Error).message}`);
      close();
    }
  })();
  return stream;
}

// One timer for every open stream of the process, not one per subscriber.
const pings = new Set<() => void>();
let pingTimer: NodeJS.Timeout | undefined;
function startPings() {
  if (pingTimer) return;
  pingTimer = setInterval(() => {
    for (const ping of pings) ping();
  }, PING_INTERVAL_MS);
  pingTimer.unref?.();
}
startPings();
