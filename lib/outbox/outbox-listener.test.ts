import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectDatabase, disconnectDatabase } from "../db/pool";
import { ownDatabase } from "../testing/own-database";
import { NOTIFY_INTERVAL_MS, onOutboxCommit, signalOutboxCommit, stopOutboxListener } from "./outbox-listener";

/**
 * How a commit reaches other processes: a NOTIFY on `arca_events`, paced, and never heard back by
 * its sender. On a database of this file's own: the suite's other servers NOTIFY on the run's.
 */
let database: Awaited<ReturnType<typeof ownDatabase>>;
let other: pg.Client;
const heard: number[] = [];
let wakes = 0;
let unsubscribe: () => void;

beforeAll(async () => {
  database = await ownDatabase(inject("databaseUrl"), "outbox_listener");
  connectDatabase(database.url);
  // Another process: it listens as every Arca process does.
  other = new pg.Client({ connectionString: database.url });
  await other.connect();
  other.on("notification", (message) => message.channel === "arca_events" && heard.push(message.processId));
  await other.query("LISTEN arca_events");
  // The listener wakes every reader once it listens (anything committed before): then it is up.
  const listening = new Promise<void>((resolve) => {
    unsubscribe = onOutboxCommit(() => {
      wakes++;
      resolve();
    });
  });
  await listening;
});

afterAll(async () => {
  unsubscribe();
  await stopOutboxListener();
  await disconnectDatabase();
  await other.end();
  await database.drop();
});

/** Waits until `count` NOTIFYs were heard, then a further 200 ms in which no more may come. */
async function heardSettled(count: number): Promise<number> {
  await expect.poll(() => heard.length, { timeout: 5000 }).toBeGreaterThanOrEqual(count);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return heard.length;
}

describe("outbox listener", () => {
  it("wakes this process's readers at every commit, and tells other processes by one NOTIFY per burst", async () => {
    const before = wakes;
    heard.length = 0;
    for (let i = 0; i < 100; i++) signalOutboxCommit();
    expect(wakes - before).toBe(100);
    // One NOTIFY at once, one after the pacing interval for the 99 that came while it was sent.
    expect(await heardSettled(2)).toBe(2);
    // The sender's own NOTIFYs do not wake its readers a second time.
    expect(wakes - before).toBe(100);

    // A commit after the burst is told on its own.
    signalOutboxCommit();
    expect(await heardSettled(3)).toBe(3);
    expect(new Set(heard).size).toBe(1);
    expect(heard[0]).not.toBe((other as pg.Client & { processID: number }).processID);
  });

  it("sends at most one NOTIFY per pacing interval under a stream of commits", async () => {
    heard.length = 0;
    const started = performance.now();
    // A commit every millisecond or so for 100 ms (a NOTIFY's round trip is about that long).
    for (let i = 0; i < 100; i++) {
      signalOutboxCommit();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const elapsed = performance.now() - started;
    const count = await heardSettled(1);
    // One at the start, then one per interval, and the last one after the stream (timers may fire
    // a millisecond early, hence the slack). Unpaced, it is one per commit.
    expect(count).toBeLessThanOrEqual(Math.ceil(elapsed / (NOTIFY_INTERVAL_MS / 2)) + 2);
  });

  it("wakes this process's readers at another process's NOTIFY", async () => {
    const before = wakes;
    await other.query("SELECT pg_notify('arca_events', '')");
    await expect.poll(() => wakes - before, { timeout: 5000 }).toBe(1);
  });
});
