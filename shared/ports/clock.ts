/** The source of "now". Services and schedulers take it so tests can move time by hand. */
export interface Clock {
  now(): Date;
}
