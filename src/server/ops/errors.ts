/**
 * A problem the person running the command can fix (a target that holds data, a shop still
 * running, a damaged file): the CLI prints the message alone and exits with 2, not a stack trace.
 */
export class OpsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpsError';
  }
}
