// Forces the suspension module's tail-call stubs on an engine whose probe
// found that they fail (JavaScriptCore), and prints, as one JSON line, how
// the runtime reports what then happens: as the engine's defect, not as a
// bug in snail-core.
import { probeDirectWaits } from '../../host/browser/engine-probe.mjs';
import { useTailCallStubs } from '../../host/browser/wasm/gates.mjs';
import { Runtime } from '../../host/node/root.mjs';

const probe = await probeDirectWaits();
useTailCallStubs(true);
const hello = decodeURIComponent(new URL('../../build/programs/hello.wasm', import.meta.url).pathname);
const rt = await Runtime.load(hello, { stdout: () => {} });
rt.dispatch('main');
let error = null;
try {
  await rt.drain();
} catch (e) {
  error = e instanceof Error ? { name: e.name, message: e.message } : { name: typeof e, message: String(e) };
}
console.log(JSON.stringify({ tailCall: probe.tailCall, error }));
// A broken-down runtime keeps its tasks live, and with them the process.
process.exit(0);
