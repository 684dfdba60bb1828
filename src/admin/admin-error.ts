// Bad operator input (unknown customer, bad number, ...): the CLI prints the message as its
// one stderr line and exits 1 (operator-interface.md). Thrown before anything is written.
export class AdminInputError extends Error {
  override readonly name = 'AdminInputError';
}
