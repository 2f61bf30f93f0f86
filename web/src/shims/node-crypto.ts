/** The UI never fingerprints findings (the server does); importing the module must not break it. */
export function createHash(): never {
  throw new Error('createHash is not available in the browser');
}
