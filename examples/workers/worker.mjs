// One snail-core runtime in one worker: a browser module Worker
// (`new Worker(url, { type: 'module' })`) or a Node worker_threads Worker.
// The scheduler never makes a worker itself; this module is the embedder's
// side of running one runtime per worker (docs/workers.md).
//
// Messages in:   { type: 'load', program, options, runtime }   load the program (once);
//                                                      `runtime`: where to import snail-core
//                                                      from (a worker has no import map)
//                { type: 'run', id, entry, arg }       dispatch a root task
//                { type: 'cancel', id }                cancel that task
//                { type: 'close' }                     close the runtime
// Messages out:  { type: 'ready' } | { type: 'failed', error }
//                { type: 'done', id, state, value, error }
//                { type: 'closed', report }
// The channel to the page or the main thread: the worker's global scope in a
// browser, worker_threads' parentPort in Node. Both deliver MessageEvents.
const port = typeof globalThis.WorkerGlobalScope === 'function'
  ? /** @type {MessagePort} */ (/** @type {unknown} */ (globalThis))
  : /** @type {MessagePort} */ (/** @type {unknown} */ (process.getBuiltinModule('node:worker_threads').parentPort));

/** @type {import('snail-core').Runtime | null} */
let rt = null;
/** @type {Map<number, import('snail-core').Task>} */
const tasks = new Map();

/** @param {unknown} error */
const describe = (error) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

port.addEventListener('message', async (/** @type {MessageEvent} */ event) => {
  const message = event.data;
  if (message.type === 'load') {
    try {
      /** @type {typeof import('snail-core')} */
      const { Runtime } = await import(message.runtime ?? 'snail-core');
      rt = await Runtime.load(message.program, message.options ?? {});
      port.postMessage({ type: 'ready' });
    } catch (error) {
      port.postMessage({ type: 'failed', error: describe(error) });
    }
  } else if (message.type === 'run' && rt) {
    const task = rt.dispatch(message.entry, message.arg);
    tasks.set(message.id, task);
    await task.done;
    tasks.delete(message.id);
    port.postMessage({
      type: 'done', id: message.id, state: task.state, value: task.value ?? null,
      error: task.state === 'failed' ? describe(task.error) : null,
    });
  } else if (message.type === 'cancel') {
    tasks.get(message.id)?.cancel();
  } else if (message.type === 'close') {
    // close() cancels what is live; each cancelled task still reports 'done' above.
    const report = rt ? await rt.close({ timeout: 5000 }) : null;
    rt = null;
    port.postMessage({ type: 'closed', report: report && { cancelled: report.cancelled.length, stuck: report.stuck.length } });
  }
});
// A MessagePort that gets its listener by addEventListener starts only when asked.
port.start?.();
