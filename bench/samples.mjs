// Samples of a benchmark row (bench/): their median and spread.

/** @typedef {{ min: number, median: number, max: number }} Spread */

/** @param {number[]} xs @returns {number} */
export function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/**
 * The spread of samples; interleaved() keeps the samples themselves (rounds in
 * order) until add() has used them for the ratio.
 * @param {number[]} xs @returns {Spread & { rounds?: number[] }}
 */
export function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: median(xs), max: s[s.length - 1], rounds: xs };
}
