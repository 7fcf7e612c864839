import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before it runs the
 * next one, in percent: 50 lets a heap with 35 MB live reach about 53 MB.
 *
 * V8's own factor rises to 4× on a machine with a large heap limit (Node derives the limit from physical
 * memory), and a busy server promotes a steady trickle of short-lived objects — requests in flight while a
 * young-generation collection runs — that only a full collection frees. Left at the default, the service
 * (35 MB live) grew to 140 MB of heap under load and its resident memory past 200 MB, for garbage. At 1.5×
 * a full collection runs about every two seconds under the bench's validate load; V8 marks concurrently and
 * incrementally, and no throughput change was measurable (docs/performance.md).
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * Bounds the growth of the old generation for this process (the `serve` command). V8 reads the flag each
 * time it sets the next collection's limit, so setting it at start is enough; test/e2e/heap-growth.test.ts
 * checks that the Node in use still honours it.
 */
export function boundHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
