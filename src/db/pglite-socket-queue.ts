// The embedded database (ruling R3) is ONE PGlite session behind every socket connection.
// pglite-socket 0.2.17 queues single protocol messages across connections and keeps a
// connection's turn only inside a SQL transaction, so two concurrent extended-protocol queries
// (Parse/Bind/Execute/Sync, what `pg` sends for every parameterised query) interleave: one
// connection's Parse replaces the other's unnamed statement ("unnamed prepared statement does
// not exist", or the wrong rows). And a message that throws leaves the queue marked busy for
// ever, so every later query hangs. Both are upstream (electric-sql/pglite#1046).
//
// This replaces the queue's scheduler on our server instance: a connection keeps its turn from
// its first extended-protocol message to its Sync (and for a whole transaction, as upstream does),
// a failing message is answered with its error without stopping the queue, and a connection
// that goes away in the middle of a batch gives its turn back.
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
  onData: (data: Uint8Array) => void;
}

/** The private state of pglite-socket's QueryQueueManager that the scheduler works on. */
interface QueueInternals {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: PGlite;
  processQueue: () => Promise<void>;
  clearQueueForHandler: (handlerId: number) => void;
}

// Frontend messages that open or continue an extended-protocol batch; Sync ('S') ends it.
const BATCH_MESSAGES = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)));
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);

export function serializeProtocolBatches(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: QueueInternals }).queryQueue;
  /** The connection whose extended-protocol batch is open, if any. */
  let batchOwner: number | null = null;

  const run = (message: Uint8Array, onData: (data: Uint8Array) => void) =>
    queue.db.runExclusive(() => queue.db.execProtocolRawStream(message, { onRawData: onData }));

  queue.processQueue = async function processQueue(): Promise<void> {
    if (queue.processing || queue.queue.length === 0) return;
    queue.processing = true;
    try {
      while (queue.queue.length > 0) {
        const owner = batchOwner ?? (queue.db.isInTransaction() ? queue.lastHandlerId : null);
        const index = owner === null ? 0 : queue.queue.findIndex((item) => item.handlerId === owner);
        // The owner's next message has not arrived yet: its enqueue starts the queue again.
        if (index === -1) break;
        const [item] = queue.queue.splice(index, 1) as [QueuedMessage];
        batchOwner = BATCH_MESSAGES.has(item.message[0] ?? 0) ? item.handlerId : null;
        queue.lastHandlerId = item.handlerId;
        let bytes = 0;
        try {
          await run(item.message, (data) => {
            bytes += data.length;
            item.onData(data);
          });
        } catch (error) {
          item.reject(error);
          continue;
        }
        item.resolve(bytes);
      }
    } finally {
      queue.processing = false;
    }
  };

  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId: number) => {
    clearQueueForHandler(handlerId);
    if (batchOwner !== handlerId) return;
    // Close the abandoned batch (its answer goes nowhere) and let the others run.
    batchOwner = null;
    void run(SYNC, () => {})
      .catch(() => undefined)
      .then(() => queue.processQueue());
  };
}
