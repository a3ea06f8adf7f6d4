// The live task view: runs examples/browser/taskview.cpp and shows, as it
// runs, how many tasks are queued, executing and suspended and why tasks are
// queued (admission control's bound, which the page lets you change), a chart
// of the last 30 seconds with its axes, a table of the live tasks and what
// each waits on, buttons to dispatch, cancel, drain and close, and a log of
// what you did. Query parameters: workers (the default count), maxEntered
// (admission control's bound; small, so that queued tasks show), db (the
// IndexedDB database), program (the program's URL), clock=manual (the chart
// samples and the log's times advance only when taskView.sample() is called:
// the tests' screenshots are then the same on every run).
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
  manualClock: params.get('clock') === 'manual',
};

const SAMPLE_MS = 100;
const SAMPLES = 300; // 30 seconds
const MAX_ROWS = 200;

/** @param {string} id @returns {any} */
const $ = (id) => document.getElementById(id);
const ui = {
  count: $('count'), dispatch: $('dispatch'), go: $('go'), cancel: $('cancel'), drain: $('drain'), close: $('close'),
  status: $('status'), visits: $('visits'), tasks: $('tasks'), more: $('more'), log: $('log'),
  bound: $('bound'), applyBound: $('apply-bound'), whyQueued: $('why-queued'), actions: $('actions'),
};
ui.count.value = String(config.workers);
ui.bound.value = String(config.maxEntered);

// The view's clock, in milliseconds since the page started: real time, or
// with clock=manual one sample interval per taskView.sample().
const started = performance.now();
let manualTime = 0;
const clock = () => (config.manualClock ? manualTime : performance.now() - started);

/** Records something you did, with when. @param {string} text */
function action(text) {
  const item = document.createElement('li');
  const when = document.createElement('time');
  when.textContent = `${(clock() / 1000).toFixed(1)} s`;
  item.append(when, text);
  ui.actions.append(item);
  ui.actions.scrollTop = ui.actions.scrollHeight;
}

/** @param {string} text */
function setStatus(text) {
  ui.status.textContent = text;
}

/** @param {string} text */
function log(text) {
  ui.log.textContent += text.endsWith('\n') ? text : `${text}\n`;
  ui.log.scrollTop = ui.log.scrollHeight;
}

// Tasks that held the permit during the current sample interval (the chart's
// "ran"), from the runtime's trace: the permit is held only inside
// microtasks, so a count of executing tasks taken from a timer reads 0.
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

/** @type {{ queued: number, ran: number, suspended: number }[]} */
const samples = [];
const peaks = { queued: 0, ran: 0, suspended: 0 };
const LINES = /** @type {const} */ (['queued', 'ran', 'suspended']);
let nextWorker = 1;
let stored = 0;
let closed = false;
let lastFinished = -1;

// What the tests and a curious reader can reach from the console.
Object.assign(globalThis, { taskView: { rt, storage, samples, peaks, config, sample: () => { sample(); render(); } } });

function sample() {
  if (config.manualClock) manualTime += SAMPLE_MS;
  const s = rt.stats();
  const point = { queued: s.queued, ran: ranNow.size, suspended: s.suspended };
  ranNow = new Set();
  samples.push(point);
  if (samples.length > SAMPLES) samples.shift();
  for (const k of LINES) peaks[k] = Math.max(peaks[k], point[k]);
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

// The plot area in the chart's coordinates: x from 30 seconds ago to now.
const PLOT = { left: 44, right: 592, top: 10, bottom: 170 };
const SVG = 'http://www.w3.org/2000/svg';

/** @param {string} tag @param {Record<string, string | number>} attrs @param {string} [text] */
function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A round top for the y axis, at least 1: 1, 2, 5, 10, 20, 50, ... @param {number} v */
function niceTop(v) {
  const step = 10 ** Math.floor(Math.log10(Math.max(1, v)));
  return [1, 2, 5, 10].map((m) => m * step).find((t) => t >= v) ?? 10 * step;
}

let chartTop = 0;
function renderAxes(top) {
  if (top === chartTop) return;
  chartTop = top;
  const y = (/** @type {number} */ v) => PLOT.bottom - (v / top) * (PLOT.bottom - PLOT.top);
  const yTicks = $('y-ticks');
  const grid = $('grid');
  yTicks.replaceChildren();
  grid.replaceChildren();
  for (const v of [0, top / 2, top]) {
    if (!Number.isInteger(v)) continue;
    yTicks.append(svg('text', { x: PLOT.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(v)));
    if (v > 0) grid.append(svg('line', { class: 'grid', x1: PLOT.left, x2: PLOT.right, y1: y(v), y2: y(v) }));
  }
  const xTicks = $('x-ticks');
  if (xTicks.childElementCount === 0) {
    const span = ((SAMPLES - 1) * SAMPLE_MS) / 1000;
    for (let ago = 30; ago >= 0; ago -= 5) {
      const x = PLOT.right - (ago / span) * (PLOT.right - PLOT.left);
      xTicks.append(svg('line', { class: 'axis', x1: x, x2: x, y1: PLOT.bottom, y2: PLOT.bottom + 4 }));
      xTicks.append(svg('text', { x, y: PLOT.bottom + 15, 'text-anchor': ago === 0 ? 'end' : 'middle' }, ago === 0 ? 'now' : String(ago)));
    }
  }
}

function renderChart() {
  const top = niceTop(Math.max(1, ...samples.map((p) => Math.max(p.queued, p.ran, p.suspended))));
  renderAxes(top);
  const dx = (PLOT.right - PLOT.left) / (SAMPLES - 1);
  for (const k of LINES) {
    // The newest sample at the right edge; older ones scroll to the left.
    const points = samples.map((p, i) => `${(PLOT.right - (samples.length - 1 - i) * dx).toFixed(1)},${(PLOT.bottom - (p[k] / top) * (PLOT.bottom - PLOT.top)).toFixed(1)}`);
    $(`line-${k}`).setAttribute('points', points.join(' '));
    $(`peak-${k}`).textContent = String(peaks[k]);
  }
}

/** Why tasks are queued: admission control's bound against the tasks that have entered Wasm. @param {ReturnType<typeof rt.stats>} s */
function renderAdmission(s) {
  const bound = rt.limits.maxEntered;
  const entered = `${s.entered} ${s.entered === 1 ? 'has' : 'have'} (started and not finished)`;
  ui.whyQueued.textContent = closed
    ? 'The runtime is closed.'
    : s.queued > 0
      ? `${s.queued} queued: at most ${bound} tasks may have entered Wasm at once (admission control, maxEntered) and ${entered}; a queued task starts when one of them finishes.`
      : `Nothing is queued: at most ${bound} tasks may have entered Wasm at once (admission control, maxEntered), and ${entered}.`;
}

function render() {
  const s = rt.stats();
  renderAdmission(s);
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
  const first = rt.dispatch('worker', nextWorker++);
  let last = first;
  for (let i = 1; i < n; i++) last = rt.dispatch('worker', nextWorker++);
  action(`Dispatch: ${n} worker${n === 1 ? '' : 's'} (${n === 1 ? `#${first.id}` : `#${first.id} to #${last.id}`})`);
  setStatus('running');
});
// Go: the program's workers wait for this click themselves; the log says how many did.
ui.go.addEventListener('click', () => {
  const waiting = rt.tasks().filter((t) => t.waitingOn === 'snail.event_wait("click #go")').length;
  action(`Go: ${waiting} worker${waiting === 1 ? '' : 's'} waited for it`);
});
ui.cancel.addEventListener('click', () => {
  const oldest = rt.tasks()[0];
  if (oldest) {
    const state = oldest.state;
    rt.cancel(oldest);
    action(`Cancel oldest: #${oldest.id} (${state})`);
  } else action('Cancel oldest: no task was live');
});
ui.tasks.addEventListener('click', (/** @type {MouseEvent} */ event) => {
  const button = /** @type {HTMLElement} */ (event.target).closest('button[data-cancel]');
  if (!(button instanceof HTMLElement)) return;
  const id = Number(button.dataset.cancel);
  const state = rt.tasks().find((t) => t.id === id)?.state;
  rt.cancel(id);
  action(`Cancel: #${id}${state ? ` (${state})` : ''}`);
});
ui.drain.addEventListener('click', async () => {
  const live = rt.stats().live;
  action(`Drain: waiting for ${live} live task${live === 1 ? '' : 's'}`);
  setStatus(`draining: ${live} live`);
  await rt.drain();
  action('Drain: no task is live');
  if (!closed) setStatus('drained');
});
ui.close.addEventListener('click', async () => {
  action(`Close: ${rt.stats().live} live`);
  setStatus('closing');
  for (const b of [ui.dispatch, ui.go, ui.cancel, ui.drain, ui.close, ui.applyBound]) b.disabled = true;
  const report = await rt.close({ timeout: 5000 });
  closed = true;
  render();
  action(`Close: cancelled ${report.cancelled.length}, stuck ${report.stuck.length}`);
  setStatus(`closed: cancelled ${report.cancelled.length}, stuck ${report.stuck.length}`);
});
// The bound is fixed when the program loads: a new one loads the page again with it.
ui.applyBound.addEventListener('click', () => {
  const bound = Number(ui.bound.value);
  if (!Number.isInteger(bound) || bound < 1 || bound > 10000) {
    action(`Admission bound: ${ui.bound.value} is not a whole number from 1 to 10000; kept ${rt.limits.maxEntered}`);
    ui.bound.value = String(rt.limits.maxEntered);
    return;
  }
  const next = new URL(location.href);
  next.searchParams.set('maxEntered', String(bound));
  location.assign(next);
});

if (!config.manualClock) setInterval(sample, SAMPLE_MS);
requestAnimationFrame(frame);

// The program counts its runs in IndexedDB: reload the page and it goes up.
const visits = rt.dispatch('visits');
await visits.done;
ui.visits.textContent = visits.state === 'returned' && /** @type {number} */ (visits.value) > 0
  ? `It has run in this browser ${visits.value} time${visits.value === 1 ? '' : 's'} (counted in storage).`
  : 'Its storage is not available here.';
for (const b of [ui.dispatch, ui.go, ui.cancel, ui.drain, ui.close, ui.applyBound]) b.disabled = false;
setStatus('ready');
