// The demo program (build/programs/demo.wasm) through the package's ES
// modules, imported by name as an application would ('snail-core',
// 'snail-core/node'), under whichever engine runs this file. Prints one JSON
// line: how the demo's root task ended, the runtime's counts after close(),
// and the program's output.
//
//   deno run -A tests/engines/demo.mjs      bun tests/engines/demo.mjs      node tests/engines/demo.mjs
import { Runtime } from 'snail-core';
import { nodeHost } from 'snail-core/node';

const demo = decodeURIComponent(new URL('../../build/programs/demo.wasm', import.meta.url).pathname);
let output = '';
const rt = await Runtime.load(demo, { ...nodeHost(), stdout: (text) => { output += text; } });
const task = rt.dispatch('main');
await rt.drain();
const report = await rt.close();
const s = rt.stats();
console.log(JSON.stringify({
  state: task.state,
  value: task.value,
  stats: { dispatched: s.dispatched, returned: s.returned, failed: s.failed, cancelled: s.cancelled, live: s.live, stacksInUse: s.stacksInUse, lends: s.lends },
  cancelledByClose: report.cancelled.length,
  output,
}));
