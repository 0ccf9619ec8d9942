/**
 * One shared worker thread that inflates batches of version 2 zlib payloads, so that inflating (most of a version 2
 * file's decoding time) runs beside the main thread's scanning. Jobs are answered in the order they were sent.
 *
 * The worker is started lazily, keeps the process alive only while a job is pending, and is given up for good if it
 * fails to start or dies: callers then inflate on their own thread (`submit` returns `undefined`).
 */

import { Worker } from 'node:worker_threads';
import { inflateChunkSize } from './packed.js';

/** Result of one job: the inflated payloads back to back, with `offsets[k]..offsets[k+1]` for payload k. */
export interface InflateResult {
  data: Buffer;
  offsets: Int32Array;
  /** Per payload: `null`, or zlib's message when it did not inflate (or had stray bytes after its end). */
  errors: (string | null)[] | null;
}

// Plain CommonJS, evaluated in the worker (so it runs the same from TypeScript sources and from dist/).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { inflateSync } = require('node:zlib');
parentPort.on('message', (job) => {
  const input = new Uint8Array(job.data);
  const inOff = job.offsets;
  const n = inOff.length - 1;
  const outs = new Array(n);
  let errors = null;
  let total = 0;
  for (let k = 0; k < n; k++) {
    const packed = input.subarray(inOff[k], inOff[k + 1]);
    try {
      const res = inflateSync(packed, { chunkSize: job.chunkSizes[k], info: true });
      if (res.engine.bytesWritten !== packed.length) {
        throw new Error((packed.length - res.engine.bytesWritten) + ' stray bytes after the zlib stream');
      }
      outs[k] = res.buffer;
      total += res.buffer.length;
    } catch (err) {
      if (errors === null) errors = new Array(n).fill(null);
      errors[k] = err && err.message ? String(err.message) : String(err);
      outs[k] = null;
    }
  }
  const out = new Uint8Array(total);
  const offsets = new Int32Array(n + 1);
  let o = 0;
  for (let k = 0; k < n; k++) {
    offsets[k] = o;
    if (outs[k] !== null) { out.set(outs[k], o); o += outs[k].length; }
  }
  offsets[n] = o;
  parentPort.postMessage({ id: job.id, data: out.buffer, offsets, errors }, [out.buffer]);
});
`;

interface Pending {
  resolve: (r: InflateResult) => void;
  reject: (e: unknown) => void;
}

class InflateWorker {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Jobs sent to the worker so far (for tests and diagnostics). */
  jobs = 0;

  /** Sends payloads to the worker; `undefined` when no worker can be used (inflate inline then). */
  submit(payloads: readonly Buffer[]): Promise<InflateResult> | undefined {
    const worker = this.ensure();
    if (worker === undefined) return undefined;
    let total = 0;
    for (const p of payloads) total += p.length;
    const data = new Uint8Array(total);
    const offsets = new Int32Array(payloads.length + 1);
    const chunkSizes = new Int32Array(payloads.length);
    let o = 0;
    for (let k = 0; k < payloads.length; k++) {
      const p = payloads[k]!;
      offsets[k] = o;
      chunkSizes[k] = inflateChunkSize(p.length);
      data.set(p, o);
      o += p.length;
    }
    offsets[payloads.length] = o;
    const id = this.nextId++;
    const result = new Promise<InflateResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (this.pending.size === 1) worker.ref();
    this.jobs++;
    worker.postMessage({ id, data: data.buffer, offsets, chunkSizes }, [data.buffer]);
    return result;
  }

  private ensure(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker !== undefined) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true });
    } catch {
      this.broken = true;
      return undefined;
    }
    worker.unref();
    worker.on('message', (msg: { id: number; data: ArrayBuffer; offsets: Int32Array; errors: (string | null)[] | null }) => {
      const p = this.pending.get(msg.id);
      if (p === undefined) return;
      this.pending.delete(msg.id);
      if (this.pending.size === 0) worker.unref();
      p.resolve({ data: Buffer.from(msg.data), offsets: msg.offsets, errors: msg.errors });
    });
    const fail = (err: unknown): void => {
      this.broken = true;
      this.worker = undefined;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const p of waiting) p.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`inflate worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/** The process-wide inflate worker. */
export const inflateWorker = new InflateWorker();
