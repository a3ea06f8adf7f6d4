// The scheduler's intervals of activity (internal): an interval begins when
// work arrives in an empty live set and ends when the set is empty again.
// While one lasts the process keep-alive token is held, and drain() waits for
// its end. An internal error that broke the scheduler rejects drain() instead.

/** @typedef {{ hold: () => void, release: () => void, dispose?: () => void }} KeepAlive */

export class Intervals {
  /**
   * @param {{ readonly size: number }} live  the scheduler's live set
   * @param {KeepAlive} keepAlive
   */
  constructor(live, keepAlive) {
    this.live = live;
    this.keepAlive = keepAlive;
    this.releasePending = false; // the live set emptied in a turn in progress: the keep-alive goes at its end
    /** @type {{ promise: Promise<void>, resolve: () => void, reject: (e: unknown) => void } | null} what drain() returns until the live set empties */
    this.drainWaiter = null;
    /** @type {unknown} set when an internal error broke the scheduler */
    this.broken = null;
  }

  /** Work arrived in the empty live set. */
  begin() {
    // Still held if the last interval ended in this turn.
    if (this.releasePending) this.releasePending = false;
    else this.keepAlive.hold();
  }

  /**
   * The live set is empty again.
   * @param {boolean} inTurn  whether a turn is in progress
   */
  end(inTurn) {
    // A turn in progress releases it at its end, unless new tasks came by
    // then: tasks that come and go within a turn toggle nothing.
    if (inTurn) this.releasePending = true;
    else this.keepAlive.release();
    const waiter = this.drainWaiter;
    this.drainWaiter = null;
    waiter?.resolve();
  }

  /** The turn ended: a keep-alive the interval's end left to it goes. */
  turnEnded() {
    if (this.releasePending) {
      this.releasePending = false;
      this.keepAlive.release();
    }
  }

  /**
   * Resolves when the live set is empty; at once if it already is. Every call
   * in one interval gets the same promise, so that polling drain() while work
   * goes on holds one waiter, not one per call.
   * @returns {Promise<void>}
   */
  drain() {
    if (this.broken !== null) return Promise.reject(this.broken);
    if (this.live.size === 0) return Promise.resolve();
    if (this.drainWaiter === null) {
      /** @type {any} */
      const waiter = {};
      waiter.promise = new Promise((resolve, reject) => { waiter.resolve = resolve; waiter.reject = reject; });
      this.drainWaiter = waiter;
    }
    return /** @type {{ promise: Promise<void> }} */ (this.drainWaiter).promise;
  }

  /**
   * No task is live: the keep-alive token lets go of its timer too, unless a
   * turn in progress still holds it (work dispatched before the turn's end
   * keeps it held, and takes no new one).
   */
  disposeKeepAliveIfIdle() {
    if (this.live.size === 0 && !this.releasePending) this.keepAlive.dispose?.();
  }

  /** The runtime closed: the keep-alive token lets go of its timer. */
  disposeKeepAlive() {
    this.keepAlive.dispose?.();
  }

  /**
   * An internal error broke the scheduler: pending and future drain() calls
   * reject with it instead of waiting forever.
   * @param {unknown} error
   */
  breakDown(error) {
    if (this.broken !== null) return;
    this.broken = error;
    const waiter = this.drainWaiter;
    this.drainWaiter = null;
    waiter?.reject(error);
  }
}
