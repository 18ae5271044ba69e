/**
 * Interleaved rounds: every side runs once per round and the order rotates from round to round,
 * so slow drift (thermal throttling, GC heap growth, a noisy neighbour) hits all sides alike.
 */

/** The figures of every round, per side, in round order. */
export interface RoundFigures<T> {
  baseline: T[];
  candidate: T[];
}

/**
 * What makes a round's figures unfit to keep (a burst the machine spread out, say): `reason`
 * names why, or returns undefined for a fit round. An unfit round is run again, with the same
 * rotation, at most `max` times in all; each redone round's reason is pushed to `redone`. Once the
 * redos are spent, unfit rounds are kept, for the caller's own checks to reject.
 */
export interface RoundRedo<T> {
  reason(figures: T[]): string | undefined;
  max: number;
  redone: string[];
}

/**
 * Runs `rounds` rounds of every function in `sides`; round r starts with side `r mod n` and goes
 * on in order. Returns each side's figures in round order.
 *
 * @example
 * ```ts
 * const [direct, floor, server] = await rotateRounds(21, [direct, floor, server]);
 * ```
 */
export async function rotateRounds<T>(
  rounds: number,
  sides: (() => Promise<T>)[],
  onRound: (round: number, figures: T[]) => void = () => {},
  redo?: RoundRedo<T>,
): Promise<T[][]> {
  const out: T[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const figures: T[] = new Array(sides.length);
    for (let k = 0; k < sides.length; k++) {
      const side = (round + k) % sides.length;
      figures[side] = await sides[side]();
    }
    const unfit = redo?.reason(figures);
    if (redo && unfit !== undefined && redo.redone.length < redo.max) {
      redo.redone.push(`round ${round + 1}: ${unfit}`);
      round--;
      continue;
    }
    figures.forEach((figure, side) => out[side].push(figure));
    onRound(round + 1, figures);
  }
  return out;
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
  const [b, c] = await rotateRounds(
    rounds,
    [baseline, candidate],
    (round, [x, y]) => onRound(round, x, y),
  );
  return { baseline: b, candidate: c };
}
