// Samples of a benchmark row (bench/): their median and spread.

/** @typedef {{ min: number, median: number, max: number }} Spread */

/**
 * The sample a fraction `q` of the way up the sorted samples.
 * @param {number[]} xs @param {number} q @returns {number}
 */
export function quantile(xs, q) {
  return [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
}

/** @param {number[]} xs @returns {number} */
export function median(xs) {
  return quantile(xs, 0.5);
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
