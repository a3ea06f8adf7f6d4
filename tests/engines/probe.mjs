// Prints, as one JSON line, what the engine probes (host/browser/engine-probe.mjs)
// find in the engine that runs this file.
import { probeDirectWaits, probeRawJspi } from '../../host/browser/engine-probe.mjs';

console.log(JSON.stringify({ raw: await probeRawJspi(), directWaits: await probeDirectWaits() }));
