/**
 * Interleaved rounds: baseline and candidate alternate, and which one goes first alternates too,
 * so slow drift (thermal throttling, GC heap growth, a noisy neighbour) hits both sides alike.
 */

/** The figures of every round, per side, in round order. */
export interface RoundFigures<T> {
  baseline: T[];
  candidate: T[];
}

/**
 * Runs `rounds` rounds of `baseline()` and `candidate()`, swapping their order every round.
 *
 * @example
 * ```ts
 * const { baseline, candidate } = await alternateRounds(5, () => opsPerSecond(a), () => opsPerSecond(b));
 * ```
 */
export async function alternateRounds<T>(
  rounds: number,
  baseline: () => Promise<T>,
  candidate: () => Promise<T>,
  onRound: (round: number, baseline: T, candidate: T) => void = () => {},
): Promise<RoundFigures<T>> {
  const out: RoundFigures<T> = { baseline: [], candidate: [] };
  for (let round = 0; round < rounds; round++) {
    let b: T;
    let c: T;
    if (round % 2 === 0) {
      b = await baseline();
      c = await candidate();
    } else {
      c = await candidate();
      b = await baseline();
    }
    out.baseline.push(b);
    out.candidate.push(c);
    onRound(round + 1, b, c);
  }
  return out;
}
