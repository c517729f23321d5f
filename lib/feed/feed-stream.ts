import type { ServerResponse } from "node:http";
import { gone } from "../errors";
import { comparePositions, type OutboxEvent, type OutboxPosition } from "../outbox/outbox-events";
import { currentIncarnations, type ProjectIncarnation } from "../projects/project-incarnation";
import { eventPosition, joinFeed, latestProjectPosition, readProjectEvents } from "./feed-hub";

/**
 * One subscriber's Server-Sent Events stream (CONTRACT §13): `id`, `event`, `data` per change of
 * its collections that passes its filter and its credential's read permission, a `: ping` every
 * 15 s. It starts after `lastEventId` (410 when that event is older than the project's
 * `events_ttl` or gone), else at the newest event, whose id it sends first so that a client that
 * drops before any change can still resume. A live subscriber that does not read (more than
 * `MAX_QUEUED_BYTES` not taken when the next event comes) is dropped; it resumes from the last id
 * it received. Catching up (a resume, or the events before it joined) goes at the client's pace.
 */
export interface FeedOptions {
  projectId: string;
  /** The project as authenticated: the stream ends if it is deleted (its id may be taken again). */
  incarnation: ProjectIncarnation;
  collections: string[];
  /** Whether the change passes the subscriber's filter. */
  matches(document: Record<string, unknown>): boolean;
  /** The part of a passing document the subscriber gets (`fields`); absent: all of it. */
  shape?(document: Record<string, unknown>): Record<string, unknown>;
  /** The credential's read permission on one document. */
  mayRead(collectionId: string, documentId: string): boolean;
  lastEventId: number | undefined;
  eventsTtlMs: number;
  /**
   * Whether the credential may still follow these collections, asked every
   * ARCA_FEED_AUTH_RECHECK_MS (10 s): a revoked token, a removed member or a deactivated project
   * ends the stream instead of streaming on what it may no longer read.
   */
  stillAllowed?(): Promise<boolean>;
  onClose?(bytesSent: number): void;
}

const MAX_QUEUED_BYTES = 1 << 20;
const MAX_BUFFERED_EVENTS = 10_000;
const CATCH_UP_BATCH = 500;
const CATCH_UP_QUEUE_BYTES = 256 * 1024;
/** Document bytes per catch-up read: every subscriber catching up holds one such page. */
const CATCH_UP_BYTES = 1024 * 1024;
export const PING_INTERVAL_MS = 15_000;
const encoder = new TextEncoder();

/**
 * Where a subscriber's bytes go: the fast door's Node response (written straight to the socket:
 * no web stream, pump and promise chain per idle subscriber) or a web ReadableStream (Next's
 * route handler). Made only once the start position is settled, so a 410 is still an answer.
 */
export interface FeedSink {
  write(chunk: Uint8Array): void;
  /** Bytes written and not yet taken by the client. */
  queued(): number;
  /** Resolves once the client has taken most of what is queued (or is gone). */
  drained(): Promise<void>;
  end(): void;
  /** Calls `listener` once the client has gone (or the stream was ended). */
  onGone(listener: () => void): void;
}

/** Opens the feed; throws (410) before `makeSink` is called when the position has expired. */
export async function openFeed<T extends FeedSink>(options: FeedOptions, makeSink: () => T): Promise<T> {
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

  const sink = makeSink();
  let closed = false;
  let caughtUp = false;
  let bytes = 0;
  const buffered: OutboxEvent[] = [];
  let leave = () => {};
  let recheck: NodeJS.Timeout | undefined;

  const send = (chunk: Uint8Array) => {
    if (closed) return;
    // Live, the hub cannot wait for one subscriber: one that has not taken what it was sent is
    // dropped (it resumes). Judged before writing, so one large event alone never drops it.
    // Catching up waits for the client instead (below).
    if (caughtUp && sink.queued() > MAX_QUEUED_BYTES) return close();
    bytes += chunk.byteLength;
    sink.write(chunk);
  };
  const emit = (event: OutboxEvent) => {
    if (comparePositions(event, position) <= 0) return; // seen during catch-up
    position = event;
    if (before.delete(event.id)) return; // committed before this subscriber came
    const document = event.document;
    if (!document || !collections.has(event.collectionId)) return;
    if (!options.mayRead(event.collectionId, event.documentId) || !options.matches(document)) return;
    // A shaped document is this subscriber's own; the whole one is encoded once for all.
    send(options.shape ? encodeEvent(event, options.shape(document)) : encodedEvent(event, document));
  };
  const release = () => {
    if (closed) return;
    closed = true;
    leave();
    pings.delete(ping);
    clearInterval(recheck);
    options.onClose?.(bytes);
  };
  const close = () => {
    if (closed) return;
    release();
    try {
      sink.end();
    } catch {
      // already closed by the client
    }
  };
  const ping = () => send(PING);
  sink.onGone(release);

  const joined = await joinFeed({
    projectId: options.projectId,
    incarnation: options.incarnation,
    collections,
    end: close,
    deliver(event) {
      if (closed) return;
      if (caughtUp) return emit(event);
      buffered.push(event);
      if (buffered.length > MAX_BUFFERED_EVENTS) close();
    },
  });
  if (closed) {
    joined.leave();
    return sink;
  }
  leave = joined.leave;
  pings.add(ping);
  const recheckMs = Number(process.env.ARCA_FEED_AUTH_RECHECK_MS || 10_000);
  if (options.stillAllowed && recheckMs > 0) {
    recheck = setInterval(() => {
      options.stillAllowed!().then((allowed) => allowed || close(), close);
    }, recheckMs);
    recheck.unref?.();
  }
  send(encoder.encode(first));
  void (async () => {
    try {
      // Caught-up events go at the client's pace: a backlog of large documents would otherwise
      // be queued at once and the subscriber dropped before it could ever catch up.
      const paced = async (event: OutboxEvent) => {
        emit(event);
        if (sink.queued() > CATCH_UP_QUEUE_BYTES) await sink.drained();
      };
      for (;;) {
        const { events, full } = await readProjectEvents(options.projectId, options.collections, position, CATCH_UP_BATCH, CATCH_UP_BYTES);
        if (closed) return;
        // As the hub does for live events: none of a project made again under this id.
        if (events.length > 0 && (await currentIncarnations([options.projectId])).get(options.projectId) !== options.incarnation) return close();
        for (const event of events) {
          await paced(event);
          if (closed) return;
        }
        if (!full) break;
      }
      // Live events that came meanwhile, in order; the last of them and the switch to live
      // happen in one turn, so the hub cannot interleave.
      while (buffered.length > 0) {
        await paced(buffered.shift()!);
        if (closed) return;
      }
      caughtUp = true;
    } catch (error) {
      console.error(`feed: catching up: ${(error as Error).message}`);
      close();
    }
  })();
  return sink;
}

const PING = encoder.encode(": ping\n\n");

// The hub hands one event object to every subscriber of its collection: its bytes are
// serialized and encoded once, not once per subscriber.
const encodedEvents = new WeakMap<OutboxEvent, Uint8Array>();
function encodedEvent(event: OutboxEvent, document: Record<string, unknown>): Uint8Array {
  let chunk = encodedEvents.get(event);
  if (!chunk) {
    chunk = encodeEvent(event, document);
    encodedEvents.set(event, chunk);
  }
  return chunk;
}

function encodeEvent(event: OutboxEvent, document: Record<string, unknown>): Uint8Array {
  return encoder.encode(`id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(document)}\n\n`);
}

/** The web-stream sink: the feed as a ReadableStream (Next's route handler, tests). */
export function webStreamSink(): FeedSink & { stream: ReadableStream<Uint8Array> } {
  const HIGH_WATER = 64 * 1024;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const listeners: (() => void)[] = [];
  let waiting: (() => void)[] = [];
  const wake = () => {
    const ready = waiting;
    waiting = [];
    for (const resolve of ready) resolve();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      // Called whenever the queue is below its high-water mark: the client has taken its share.
      pull() {
        wake();
      },
      cancel() {
        wake();
        for (const listener of listeners.splice(0)) listener();
      },
    },
    { highWaterMark: HIGH_WATER, size: (chunk) => chunk.byteLength },
  );
  let gone = false;
  listeners.push(() => (gone = true));
  return {
    stream,
    write(chunk) {
      controller.enqueue(chunk);
    },
    queued() {
      return HIGH_WATER - (controller.desiredSize ?? HIGH_WATER);
    },
    drained() {
      if (gone || (controller.desiredSize ?? 0) > 0) return Promise.resolve();
      return new Promise((resolve) => waiting.push(resolve));
    },
    end() {
      controller.close();
      wake();
      for (const listener of listeners.splice(0)) listener();
    },
    onGone(listener) {
      listeners.push(listener);
    },
  };
}

/** The fast door's sink: status and headers now, then every chunk straight to the socket. */
export function nodeResponseSink(outgoing: ServerResponse, headers: Record<string, string>): FeedSink {
  outgoing.writeHead(200, headers);
  outgoing.flushHeaders();
  return {
    write(chunk) {
      outgoing.write(chunk);
    },
    queued() {
      return outgoing.writableLength;
    },
    drained() {
      if (outgoing.writableLength === 0 || outgoing.destroyed || outgoing.writableEnded) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          outgoing.off("drain", done);
          outgoing.off("close", done);
          resolve();
        };
        outgoing.on("drain", done);
        outgoing.on("close", done);
      });
    },
    end() {
      outgoing.end();
    },
    onGone(listener) {
      outgoing.once("close", listener);
    },
  };
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
