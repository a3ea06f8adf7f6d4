// The scheduler's invariants (internal), checked after every step when a
// runtime checks its invariants (checkInvariants) and by rt.assertInvariants():
// what each of the scheduler's fields says about the others, and the engine's
// own (the registers hold their defaults while no task holds the permit).
import { InternalError } from './errors.mjs';
import { S, STATE_NAMES } from './task.mjs';

/**
 * Checks every invariant of the scheduler; throws InternalError on the first broken one.
 * @param {import('./tasks.mjs').Scheduler} s
 */
export function assertSchedulerInvariants(s) {
  const fail = (/** @type {string} */ m) => { throw new InternalError(`invariant broken: ${m}`); };
  const engine = s.engine.engineProblem();
  if (engine !== null) fail(engine);
  const seen = [0, 0, 0];
  let ready = 0;
  for (const t of s.live) {
    if (t._s >= S.returned) fail(`${t} is in the live set but ${t.state}`);
    seen[t._s]++;
    if (t._ready) {
      if (t._s !== S.suspended) fail(`${t} has a resumption queued but is ${t.state}`);
      ready++;
    }
    if (t._s === S.executing && t !== s.holder) fail(`${t} executes without the permit`);
  }
  for (let k = 0; k < 3; k++) {
    if (seen[k] !== s.byState[k]) fail(`count of ${STATE_NAMES[k]} is ${s.byState[k]}, the live set has ${seen[k]}`);
  }
  if (ready !== s.ready) fail(`ready count is ${s.ready}, the live set has ${ready}`);
  // Held-back resumptions wait for the turn's end: it must come.
  if (s.holding && !s.turn.asked && !s.turn.busy) fail(`${s.held} resumptions are held back until the turn's end, which is not asked for`);
  if (seen[S.executing] > 1) fail(`${seen[S.executing]} tasks hold the permit`);
  if (s.holder !== null && (s.holder._s !== S.executing || !s.live.has(s.holder))) {
    fail(`the permit holder ${s.holder} is not an executing live task`);
  }
  if ((s.holder === null) !== (seen[S.executing] === 0)) fail('the permit and the executing count disagree');
  if (s.entered !== seen[S.executing] + seen[S.suspended]) {
    fail(`entered is ${s.entered}, executing + suspended is ${seen[S.executing] + seen[S.suspended]}`);
  }
  if (s.entered > s.hardMaxEntered) fail(`${s.entered} tasks entered, above the hard bound`);
  if (s.live.size === 0 && s.intervals.drainWaiter !== null) fail('a drain() waiter pending with an empty live set');
  if (s.turn.paused && !s.turn.asked) fail('paused without a pending turn-end macrotask');
  if (s.turn.asked && !s.turn.active) fail('a turn-end macrotask is pending, but no turn is counted');
  // The lent task and the task with the lease are the holder by construction
  // (`lent` and `lease` are flags on it): neither stands without a holder.
  if ((s.holderLent || s.holderLeased) && s.holder === null) {
    fail(`no task holds the permit, but it is ${s.holderLent ? 'lent' : 'leased'}`);
  }
  const lease = s.lease;
  if (lease !== null) {
    // What mayLend() checks holds for as long as the lease does. Its task
    // holds the permit lent, or runs, having taken it (handOff()).
    if (lease !== s.holder || (s.lent !== lease && s.lent !== null)) fail(`${lease} has the lease but is not the holder, or another task is lent the permit`);
    if (lease._cancelNow) fail(`${lease} has the lease but its waits are cancelled`);
    if (s.readyWanting || s.turn.paused || s.exclusives !== 0 || s.releaseWaiters.length !== 0 || !s.turn.active) {
      fail(`${lease} has the lease, but ready ${s.ready} (held back ${s.held}), paused ${s.turn.paused}, exclusives ${s.exclusives}, release waiters ${s.releaseWaiters.length}, turn active ${s.turn.active}`);
    }
    const next = s.byState[S.queued] !== 0 ? s.pickWanting() : null;
    if (next !== null) fail(`${lease} has the lease, but ${next} could be granted the permit`);
    if (s.leaseEnd > s.turn.maxSteps || s.turn.steps > s.leaseEnd) fail(`the lease ends at step ${s.leaseEnd}, the turn is at ${s.turn.steps} of ${s.turn.maxSteps}`);
  }
  if (s.holder === null) {
    const off = s.engine.registersOffDefaults();
    if (off !== null) fail(`no task holds the permit, but ${off}`);
  } else if (s.lent === s.holder && s.engine.lendParked(s.holder)) {
    // A lent wait saved the task's registers too (the specification: at a
    // JSPI wait the runtime saves them and restores the defaults).
    const off = s.engine.registersOffDefaults();
    if (off !== null) fail(`${s.holder} waits with its permit lent, but ${off}`);
  }
}
