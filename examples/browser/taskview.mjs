// The live task view: runs examples/browser/taskview.cpp and shows, as it
// runs, how many tasks are queued, executing and suspended, a table of the live
// tasks and what each waits on, and buttons to dispatch, cancel, drain and
// close. Query parameters: workers (the default count), maxEntered (admission
// control's bound; small, so that queued tasks show), db (the IndexedDB
// database), program (the program's URL).
import { IndexedDBStorage, registerSelector, Runtime } from 'snail-core';

const params = new URLSearchParams(location.search);
/** @param {string} name @param {number} fallback */
const intParam = (name, fallback) => {
  const v = Number(params.get(name));
  return params.has(name) && Number.isInteger(v) && v > 0 ? v : fallback;
};
const config = {
  program: params.get('program') ?? new URL('../../build/programs/taskview.wasm', import.meta.url).href,
  workers: intParam('workers', 12),
  maxEntered: intParam('maxEntered', 8),
  database: params.get('db') ?? 'snail-core:taskview',
};

const SAMPLE_MS = 100;
const SAMPLES = 300; // 30 seconds
const MAX_ROWS = 200;

/** @param {string} id @returns {any} */
const $ = (id) => document.getElementById(id);
const ui = {
  count: $('count'), dispatch: $('dispatch'), go: $('go'), cancel: $('cancel'), drain: $('drain'), close: $('close'),
  status: $('status'), visits: $('visits'), tasks: $('tasks'), more: $('more'), log: $('log'), scale: $('scale'),
};
ui.count.value = String(config.workers);

/** @param {string} text */
function setStatus(text) {
  ui.status.textContent = text;
}

/** @param {string} text */
function log(text) {
  ui.log.textContent += text.endsWith('\n') ? text : `${text}\n`;
  ui.log.scrollTop = ui.log.scrollHeight;
}

// Tasks that held the permit during the current sample interval, from the
// runtime's trace: the permit is held only inside microtasks, so a sample of
// `executing` taken from a timer would always read 0.
let ranNow = new Set();
/** @param {{ type: string, task: number }} event */
function trace(event) {
  if (event.type === 'start' || event.type === 'resume') ranNow.add(event.task);
}

const storage = new IndexedDBStorage({ database: config.database });
let rt;
try {
  rt = await Runtime.load(config.program, {
    maxEntered: config.maxEntered,
    services: { storage },
    stdout: log,
    stderr: log,
    trace,
  });
} catch (error) {
  setStatus('failed to load');
  log(String(error instanceof Error ? error.message : error));
  throw error;
}
registerSelector(rt.events, 'click #go', '#go', 'click');

/** @type {{ queued: number, executing: number, suspended: number }[]} */
const samples = [];
const peaks = { queued: 0, executing: 0, suspended: 0 };
let nextWorker = 1;
let stored = 0;
let closed = false;
let lastFinished = -1;

// What the tests and a curious reader can reach from the console.
Object.assign(globalThis, { taskView: { rt, storage, samples, peaks, config } });

function sample() {
  const s = rt.stats();
  const point = { queued: s.queued, executing: ranNow.size, suspended: s.suspended };
  ranNow = new Set();
  samples.push(point);
  if (samples.length > SAMPLES) samples.shift();
  for (const k of /** @type {const} */ (['queued', 'executing', 'suspended'])) peaks[k] = Math.max(peaks[k], point[k]);
}

async function countStored() {
  const keys = await storage.list(new AbortController().signal, 'results', 'worker-');
  stored = keys.length;
}

/** @type {Map<number, { row: HTMLTableRowElement, state: string, waiting: string }>} */
const rows = new Map();

function renderTable() {
  const live = closed ? [] : rt.tasks().slice(0, MAX_ROWS);
  const seen = new Set();
  // Rows follow the live tasks' order; finished tasks' rows go at the end.
  let cursor = ui.tasks.firstElementChild;
  for (const task of live) {
    seen.add(task.id);
    let entry = rows.get(task.id);
    if (!entry) {
      const row = document.createElement('tr');
      row.dataset.task = String(task.id);
      row.innerHTML = '<td></td><td></td><td></td><td><code></code></td><td><button>cancel</button></td>';
      row.cells[0].textContent = `#${task.id}`;
      row.cells[1].textContent = task.entry;
      /** @type {HTMLButtonElement} */ (row.querySelector('button')).dataset.cancel = String(task.id);
      entry = { row, state: '', waiting: '' };
      rows.set(task.id, entry);
    }
    if (entry.state !== task.state) {
      entry.state = task.state;
      entry.row.cells[2].textContent = task.state;
      entry.row.cells[2].className = `state-${task.state}`;
    }
    const waiting = task.waitingOn ?? '';
    if (entry.waiting !== waiting) {
      entry.waiting = waiting;
      /** @type {HTMLElement} */ (entry.row.cells[3].firstElementChild).textContent = waiting;
    }
    if (entry.row === cursor) cursor = cursor.nextElementSibling;
    else ui.tasks.insertBefore(entry.row, cursor);
  }
  for (const [id, entry] of rows) {
    if (!seen.has(id)) {
      entry.row.remove();
      rows.delete(id);
    }
  }
  const total = closed ? 0 : rt.stats().live;
  ui.more.textContent = total > MAX_ROWS ? `and ${total - MAX_ROWS} more live tasks` : '';
}

function renderChart() {
  const top = Math.max(1, ...samples.map((p) => Math.max(p.queued, p.executing, p.suspended)));
  ui.scale.textContent = String(top);
  for (const k of /** @type {const} */ (['queued', 'executing', 'suspended'])) {
    // The newest sample at the right edge; older ones scroll to the left.
    const offset = SAMPLES - samples.length;
    const points = samples.map((p, i) => `${((offset + i) * 600 / (SAMPLES - 1)).toFixed(1)},${(176 - (p[k] / top) * 170).toFixed(1)}`);
    $(`line-${k}`).setAttribute('points', points.join(' '));
    $(`peak-${k}`).textContent = String(peaks[k]);
  }
}

function render() {
  const s = rt.stats();
  for (const k of ['queued', 'executing', 'suspended', 'live', 'returned', 'cancelled', 'yields']) {
    $(`count-${k}`).textContent = String(/** @type {any} */ (s)[k]);
  }
  $('count-stored').textContent = String(stored);
  // Recount the stored results when tasks finished since the last look.
  const finished = s.returned + s.cancelled + s.failed;
  if (finished !== lastFinished) {
    lastFinished = finished;
    countStored().catch((e) => log(`listing the stored results failed: ${e}`));
  }
  renderTable();
  renderChart();
}

function frame() {
  render();
  requestAnimationFrame(frame);
}

ui.dispatch.addEventListener('click', () => {
  const n = Math.max(1, Math.min(10000, Number(ui.count.value) || config.workers));
  for (let i = 0; i < n; i++) rt.dispatch('worker', nextWorker++);
  setStatus('running');
});
ui.cancel.addEventListener('click', () => {
  const oldest = rt.tasks()[0];
  if (oldest) rt.cancel(oldest);
});
ui.tasks.addEventListener('click', (/** @type {MouseEvent} */ event) => {
  const button = /** @type {HTMLElement} */ (event.target).closest('button[data-cancel]');
  if (button instanceof HTMLElement) rt.cancel(Number(button.dataset.cancel));
});
ui.drain.addEventListener('click', async () => {
  setStatus(`draining: ${rt.stats().live} live`);
  await rt.drain();
  if (!closed) setStatus('drained');
});
ui.close.addEventListener('click', async () => {
  setStatus('closing');
  for (const b of [ui.dispatch, ui.go, ui.cancel, ui.drain, ui.close]) b.disabled = true;
  const report = await rt.close({ timeout: 5000 });
  closed = true;
  render();
  setStatus(`closed: cancelled ${report.cancelled.length}, stuck ${report.stuck.length}`);
});

setInterval(sample, SAMPLE_MS);
requestAnimationFrame(frame);

// The program counts its runs in IndexedDB: reload the page and it goes up.
const visits = rt.dispatch('visits');
await visits.done;
ui.visits.textContent = visits.state === 'returned' && /** @type {number} */ (visits.value) > 0
  ? `It has run in this browser ${visits.value} time${visits.value === 1 ? '' : 's'} (counted in storage).`
  : 'Its storage is not available here.';
for (const b of [ui.dispatch, ui.go, ui.cancel, ui.drain, ui.close]) b.disabled = false;
setStatus('ready');
